-- name: insert_player
-- Create a player (player_row); the token is stored only as its hash. No row: the token
-- is taken.
INSERT INTO players (id, name, time_zone, token_hash, created_at)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (token_hash) DO NOTHING
RETURNING player_row(players)::text;

-- name: players_by_token
-- The players bearer tokens belong to (looked up by the tokens' hashes), for a batch of
-- requests at once: a JSON array of the player of each hash in order (player_row; null:
-- no player has it), each looked up by its key.
SELECT coalesce(json_agg(
    (SELECT player_row(p) FROM players p WHERE p.token_hash = t.token_hash) ORDER BY t.at
), '[]')::text
FROM unnest($1::bytea[]) WITH ORDINALITY AS t(token_hash, at);

-- name: update_player
-- Change a player's name ($2: whether to set it to $3), time zone ($4, kept when NULL) and
-- language ($8, kept when NULL). Moving to another zone records when ($5) and keeps every
-- date before $6 closed; it is refused (no row) when the zone last changed after the
-- cut-off $7.
UPDATE players
SET name = CASE WHEN $2 THEN $3 ELSE name END,
    language = COALESCE($8::text, language),
    time_zone = COALESCE($4::text, time_zone),
    time_zone_changed_at = CASE WHEN $4::text <> time_zone THEN $5 ELSE time_zone_changed_at END,
    closed_before = CASE WHEN $4::text <> time_zone THEN GREATEST(closed_before, $6::date)
                         ELSE closed_before END
WHERE id = $1
  AND ($4::text IS NULL OR $4::text = time_zone OR time_zone_changed_at IS NULL
       OR time_zone_changed_at <= $7)
RETURNING player_row(players)::text;

-- name: time_zone_changed_at
-- When the player's time zone last changed.
SELECT time_zone_changed_at FROM players WHERE id = $1;

-- name: offer_transfer
-- A new transfer code for a player (its hash), replacing any earlier one.
INSERT INTO transfer_codes (player_id, code_hash, expires_at)
VALUES ($1, $2, $3)
ON CONFLICT (player_id) DO UPDATE
SET code_hash = EXCLUDED.code_hash, expires_at = EXCLUDED.expires_at, claimed_with = NULL;

-- name: spend_transfer
-- Spend a live transfer code for the token whose hash is $3; the same token again
-- finds it spent by itself (a retried claim). The code's player, or no row.
UPDATE transfer_codes
SET claimed_with = $3
WHERE code_hash = $1 AND expires_at > $2 AND (claimed_with IS NULL OR claimed_with = $3)
RETURNING player_id;

-- name: retoken_player
-- Give a player a new token (its hash): the old one stops at once.
UPDATE players SET token_hash = $2 WHERE id = $1
RETURNING player_row(players)::text;

-- name: insert_players_bulk
-- Many players at once (synthetic days for load tests): ids, names, time zones, token
-- hashes, creation times.
INSERT INTO players (id, name, time_zone, token_hash, created_at)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bytea[], $5::timestamptz[]);
