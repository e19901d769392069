-- The series a player is in (GET /v1/players/me/series): a range of an index by player,
-- not a read of every seat.
CREATE INDEX series_players_by_player ON series_players (player_id, series_code);
