-- name: insert_player
-- Create a player; the token is stored only as its hash.
INSERT INTO players (id, name, time_zone, token_hash, created_at)
VALUES ($1, $2, $3, $4, $5)
RETURNING id, name, time_zone, created_at;

-- name: players_by_token
-- The players bearer tokens belong to (looked up by the tokens' hashes), for a batch of
-- requests at once.
SELECT id, name, time_zone, created_at, token_hash FROM players
WHERE token_hash = ANY($1::bytea[]);

-- name: update_player
-- Change a player's name and time zone (each kept when NULL is given and not cleared).
UPDATE players
SET name = CASE WHEN $2 THEN $3 ELSE name END,
    time_zone = COALESCE($4, time_zone)
WHERE id = $1
RETURNING id, name, time_zone, created_at;
