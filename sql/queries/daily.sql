-- name: lock_player
-- Serialise one player's submissions (their streak is computed from their runs).
SELECT id FROM players WHERE id = $1 FOR UPDATE;

-- name: daily_run
-- A player's official run of a date, as stored.
SELECT player_id, day, id, moves, score, best_possible, rank_better, rank_worse,
       rank_players, streak_current, streak_best, streak_last_played, played_today,
       submitted_at
FROM daily_runs WHERE player_id = $1 AND day = $2;

-- name: daily_batch_read
-- What a batch of official runs reads before it writes, in one round trip: the stored
-- runs of the batch's (player, date) pairs ($2, $3), the players' ($1) streaks (and the
-- dates they played, for a date out of order) and the histograms of the batch's dates
-- ($4); first, when $5, the players locked (see the function).
SELECT * FROM daily_batch_read($1::uuid[], $2::uuid[], $3::date[], $4::date[], $5::boolean);

-- name: daily_batch_read_by_tokens
-- daily_batch_read for runs sent with their players' bearer tokens, the players looked up
-- in the same round trip: the token hashes ($1) and the dates ($2) of the runs, one each
-- a run, and their dates sorted ($3). First a 'player' row for each token hash that is a
-- player's (player_id, token_hash and the columns of players_by_token), then
-- daily_batch_read's rows for the runs of the players found.
WITH found AS MATERIALIZED (
    SELECT p.id, p.name, p.time_zone, p.created_at, p.time_zone_changed_at,
           p.closed_before, p.language, p.token_hash
    FROM players p
    WHERE p.token_hash = ANY($1::bytea[])
), asked AS MATERIALIZED (
    SELECT f.id AS player_id, t.day, t.at
    FROM unnest($1::bytea[], $2::date[]) WITH ORDINALITY AS t(token_hash, day, at)
    JOIN found f ON f.token_hash = t.token_hash
)
SELECT 'player' AS kind, f.id AS player_id, NULL::date AS day, NULL::uuid AS id,
       NULL::jsonb AS moves, NULL::integer AS score, NULL::integer AS best_possible,
       NULL::integer AS rank_better, NULL::integer AS rank_worse,
       NULL::integer AS rank_players, NULL::integer AS streak_current,
       NULL::integer AS streak_best, NULL::date AS streak_last_played,
       NULL::boolean AS played_today, NULL::timestamptz AS submitted_at,
       NULL::integer[] AS scores, NULL::integer[] AS players, f.token_hash, f.name,
       f.time_zone, f.created_at, f.time_zone_changed_at, f.closed_before, f.language
FROM found f
UNION ALL
SELECT r.*, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM daily_batch_read(
    ARRAY(SELECT DISTINCT a.player_id FROM asked a ORDER BY 1),
    ARRAY(SELECT a.player_id FROM asked a ORDER BY a.at),
    ARRAY(SELECT a.day FROM asked a ORDER BY a.at),
    $3::date[],
    false
) AS r;

-- name: daily_batch_write
-- Store official runs ($1, JSON), their players' streaks after them ($2, JSON) and their
-- dates' histogram counters (one shard, $3), in one statement, unless a player's streak
-- row is no longer what the runs were computed from: then nothing, and
-- serialization_failure (see the function).
SELECT daily_batch_write($1::text::jsonb, $2::text::jsonb, $3::smallint);

-- name: streak
-- A player's streak row and whether they have played the given date.
SELECT s.latest_length, s.best, s.last_played,
       EXISTS (SELECT 1 FROM daily_runs r WHERE r.player_id = $1 AND r.day = $2) AS played_day
FROM streaks s WHERE s.player_id = $1;

-- name: day_histograms
-- How many official runs of each of these dates ended on each score (a few dozen
-- counters a date, whatever its number of runs).
SELECT day, score, sum(players)::int AS players
FROM day_scores WHERE day = ANY($1::date[]) AND players > 0
GROUP BY day, score;

-- name: day_leaderboard
-- A date's leaderboard in one statement, so from one snapshot: how many players ended on
-- each score, and the best $2 runs (100 at most), best first (ties in order of
-- submission): scores, players, top_names, top_scores (see the function).
SELECT * FROM day_leaderboard($1::date, $2::integer);

-- name: history
-- A player's official runs, newest first, before a date.
SELECT day, score FROM daily_runs
WHERE player_id = $1 AND day < $2
ORDER BY day DESC
LIMIT $3;

-- name: make_daily_partitions
-- The monthly partitions of daily runs that hold these dates, made where missing.
SELECT make_daily_runs_partition(day) FROM unnest($1::date[]) AS day;
