-- name: lock_player
-- Serialise one player's submissions (their streak is computed from their runs).
SELECT id FROM players WHERE id = $1 FOR UPDATE;

-- name: daily_run
-- A player's official run of a date.
SELECT id, day, moves_digest, score, shut, response::text AS response, submitted_at
FROM daily_runs WHERE player_id = $1 AND day = $2;

-- name: player_runs
-- The dates a player played; the run of date $2 comes with its stored answer, and the
-- epoch of that date's Redis leaderboard rides along. No run yet: one row of NULLs.
-- (Run it after lock_player, as its own statement: then it sees every run committed
-- by the submissions that held the lock before.)
SELECT r.id, r.day, r.moves_digest, r.score, r.shut, r.submitted_at,
       CASE WHEN r.day = $2 THEN r.response::text END AS response,
       COALESCE((SELECT epoch FROM leaderboard_epochs WHERE day = $2), 0) AS epoch
FROM players p LEFT JOIN daily_runs r ON r.player_id = p.id
WHERE p.id = $1;

-- name: insert_daily_run
-- Store an official run and the player's streak after it, in one statement; the
-- (player_id, day) key refuses a second run (then nothing is returned).
WITH run AS (
    INSERT INTO daily_runs
        (id, player_id, day, sequence_id, moves, moves_digest, score, shut, best_possible,
         response, submitted_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text::json, $11)
    ON CONFLICT (player_id, day) DO NOTHING
    RETURNING id, player_id
)
INSERT INTO streaks (player_id, latest_length, best, last_played)
SELECT player_id, $12, $13, $14 FROM run
ON CONFLICT (player_id) DO UPDATE
SET latest_length = EXCLUDED.latest_length, best = EXCLUDED.best,
    last_played = EXCLUDED.last_played
RETURNING player_id;

-- name: streak
-- A player's streak row and whether they have played the given date.
SELECT s.latest_length, s.best, s.last_played,
       EXISTS (SELECT 1 FROM daily_runs r WHERE r.player_id = $1 AND r.day = $2) AS played_day
FROM streaks s WHERE s.player_id = $1;

-- name: rank_counts
-- How many official runs of a date scored below and above a score, and how many in all.
SELECT count(*) FILTER (WHERE score < $2) AS better,
       count(*) FILTER (WHERE score > $2) AS worse,
       count(*) AS players
FROM daily_runs WHERE day = $1;

-- name: day_scores
-- Every (player, score) of a date: rebuilds the Redis leaderboard.
SELECT player_id, score FROM daily_runs WHERE day = $1;

-- name: day_histogram
-- The day's scores: how many players ended on each, and how many shut the box.
SELECT score, count(*) AS players FROM daily_runs WHERE day = $1 GROUP BY score ORDER BY score;

-- name: day_top
-- The best runs of a date, best first (ties in order of submission).
SELECT p.name, r.score
FROM daily_runs r JOIN players p ON p.id = r.player_id
WHERE r.day = $1
ORDER BY r.score, r.submitted_at
LIMIT $2;

-- name: history
-- A player's official runs, newest first, before a date.
SELECT day, score, shut FROM daily_runs
WHERE player_id = $1 AND day < $2
ORDER BY day DESC
LIMIT $3;

-- name: leaderboard_epoch
-- The epoch of a date's Redis leaderboard (0 until a Redis write of that date failed).
SELECT COALESCE((SELECT epoch FROM leaderboard_epochs WHERE day = $1), 0);

-- name: bump_leaderboard_epoch
-- A run of the date is missing from Redis: every process rebuilds the set before use.
INSERT INTO leaderboard_epochs (day, epoch) VALUES ($1, 1)
ON CONFLICT (day) DO UPDATE SET epoch = leaderboard_epochs.epoch + 1;
