-- name: solver_tables_of_variant
-- The packed tables of a rules variant in one encoding, if it was ever solved.
SELECT tables FROM solver_tables
WHERE tiles = $1 AND one_die = $2 AND move_rule = $3 AND scoring = $4 AND encoding = $5;

-- name: insert_solver_tables
-- Store a variant's tables once solved; a row stored first by another process stays
-- (both are the same tables).
INSERT INTO solver_tables (tiles, one_die, move_rule, scoring, encoding, tables)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING;

-- name: solver_tables_of_rules
-- The packed tables of a newer rules variant (keyed by its rules) in one encoding, if it
-- is stored; a row last used more than an hour ago is marked used now (its place in the
-- order of eviction), so that reads write at most once an hour a variant.
WITH used AS (
    UPDATE solver_tables_of_rules SET used_at = now()
    WHERE rules = $1 AND encoding = $2 AND used_at < now() - interval '1 hour'
)
SELECT tables FROM solver_tables_of_rules WHERE rules = $1 AND encoding = $2;

-- name: insert_solver_tables_of_rules
-- Store a newer variant's tables once solved; a row stored first by another process stays.
INSERT INTO solver_tables_of_rules (rules, encoding, tables) VALUES ($1, $2, $3)
ON CONFLICT DO NOTHING;

-- name: evict_solver_tables_of_rules
-- Let the tables of the variants the rules sheets do not name ($1: their keys) go, but
-- the $2 used most recently (rows of every encoding counted alike: another encoding's
-- are read by no process of this one, and age out).
DELETE FROM solver_tables_of_rules
WHERE (rules, encoding) IN (
    SELECT rules, encoding FROM solver_tables_of_rules
    WHERE rules <> ALL ($1::text[])
    ORDER BY used_at DESC, rules, encoding
    OFFSET $2
);
