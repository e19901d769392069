-- name: lock_player
-- Serialise one player's submissions (their streak is computed from their runs).
SELECT id FROM players WHERE id = $1 FOR UPDATE;

-- name: daily_run
-- A player's official run of a date, as stored.
SELECT player_id, day, id, moves, score, best_possible, rank_better, rank_worse,
       rank_players, streak_current, streak_best, streak_last_played, played_today,
       submitted_at, streak_freezes, weekly_current, weekly_best, request_key,
       request_language
FROM daily_runs WHERE player_id = $1 AND day = $2;

-- name: daily_batch_read
-- What a batch of official runs reads before it writes, in one round trip: the stored
-- runs of the batch's (player, date) pairs ($2, $3), the players' ($1) streaks (and the
-- dates they played, for a date out of order) and the histograms of the batch's dates
-- ($4); first, when $5, the players locked. One JSON object (see the function).
SELECT daily_batch_read($1::uuid[], $2::uuid[], $3::date[], $4::date[], $5::boolean)::text;

-- name: daily_batch_read_by_tokens
-- daily_batch_read for runs sent with their players' bearer tokens, the players looked up
-- in the same round trip: the token hashes ($1) and the dates ($2) of the runs, one each
-- a run, and their dates sorted ($3). One JSON object: "players", the player of each
-- token hash in order (player_row; null: no player has it), and "read", what
-- daily_batch_read reads for the runs of the players found. Each token is looked up by
-- its key, whatever the plan the statement keeps.
WITH asked AS MATERIALIZED (
    SELECT t.at, t.day, (SELECT p FROM players p WHERE p.token_hash = t.token_hash) AS player
    FROM unnest($1::bytea[], $2::date[]) WITH ORDINALITY AS t(token_hash, day, at)
), found AS MATERIALIZED (
    SELECT a.at, a.day, (a.player).id AS player_id FROM asked a WHERE (a.player).id IS NOT NULL
)
SELECT json_build_object(
    'players', ARRAY(SELECT player_row(a.player) FROM asked a ORDER BY a.at),
    'read', daily_batch_read(
        ARRAY(SELECT DISTINCT f.player_id FROM found f ORDER BY 1),
        ARRAY(SELECT f.player_id FROM found f ORDER BY f.at),
        ARRAY(SELECT f.day FROM found f ORDER BY f.at),
        $3::date[],
        false
    )
)::text;

-- name: daily_batch_write
-- Store official runs ($1, JSON), their players' streaks after them ($2, JSON) and their
-- dates' histogram counters (one shard, $3), in one statement, unless a player's streak
-- row is no longer what the runs were computed from: then nothing, and
-- serialization_failure (see the function).
SELECT daily_batch_write($1::text::jsonb, $2::text::jsonb, $3::smallint);

-- name: streak
-- A player's streak row and which of the dates $2 and $3 (either may be null) they have
-- played: a lookup by key a date. Each date a parameter of its own, so that the plan
-- the session keeps sets up a scan of that date's month alone when it starts (with an
-- array of dates it would set up a scan of every month, at every call).
SELECT s.latest_length, s.best, s.last_played, s.freezes, s.weekly_length, s.weekly_best,
       ARRAY(SELECT r.day FROM daily_runs r WHERE r.player_id = $1 AND r.day = $2::date
             UNION ALL
             SELECT r.day FROM daily_runs r WHERE r.player_id = $1 AND r.day = $3::date)
         AS played_days
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
-- A player's official runs and the dates stored as frozen (score null), newest first,
-- before a date: $3 of each at most by key, then the newest $3 of both.
SELECT h.day, h.score
FROM (
    (SELECT r.day, r.score FROM daily_runs r
     WHERE r.player_id = $1 AND r.day < $2 ORDER BY r.day DESC LIMIT $3)
    UNION ALL
    (SELECT f.day, NULL::integer FROM frozen_dates f
     WHERE f.player_id = $1 AND f.day < $2 ORDER BY f.day DESC LIMIT $3)
) h
ORDER BY h.day DESC
LIMIT $3;

-- name: make_daily_partitions
-- The monthly partitions of daily runs that hold these dates, made where missing.
SELECT make_daily_runs_partition(day) FROM unnest($1::date[]) AS day;
