-- name: insert_player
-- Create a player; the token is stored only as its hash. No row: the token is taken.
INSERT INTO players (id, name, time_zone, token_hash, created_at)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (token_hash) DO NOTHING
RETURNING id, name, time_zone, created_at, time_zone_changed_at, closed_before, language;

-- name: players_by_token
-- The players bearer tokens belong to (looked up by the tokens' hashes), for a batch of
-- requests at once.
SELECT id, name, time_zone, created_at, time_zone_changed_at, closed_before, language, token_hash
FROM players
WHERE token_hash = ANY($1::bytea[]);

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
RETURNING id, name, time_zone, created_at, time_zone_changed_at, closed_before, language;

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
RETURNING id, name, time_zone, created_at, time_zone_changed_at, closed_before, language;

-- name: insert_players_bulk
-- Many players at once (synthetic days for load tests): ids, names, time zones, token
-- hashes, creation times.
INSERT INTO players (id, name, time_zone, token_hash, created_at)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bytea[], $5::timestamptz[]);
