-- name: lock_player
-- Serialise one player's submissions (their streak is computed from their runs).
SELECT id FROM players WHERE id = $1 FOR UPDATE;

-- name: daily_run
-- A player's official run of a date.
SELECT id, day, moves_digest, score, shut, response::text AS response, submitted_at
FROM daily_runs WHERE player_id = $1 AND day = $2;

-- name: lock_players
-- Serialise the submissions of these players (their streaks are computed from their
-- runs), locking in one order everywhere so that two batches never deadlock.
SELECT id FROM players WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE;

-- name: players_runs
-- Every run of the players of a batch ($1, $2: each submission's player and date); the
-- runs of those (player, date) pairs come with their stored answers.
-- (Run it after lock_players, as its own statement: then it sees every run committed
-- by the submissions that held the locks before.)
SELECT r.player_id, r.id, r.day, r.moves_digest, r.score, r.shut, r.submitted_at,
       CASE WHEN (r.player_id, r.day) IN (SELECT * FROM unnest($1::uuid[], $2::date[]))
            THEN r.response::text END AS response
FROM daily_runs r
WHERE r.player_id = ANY($1::uuid[]);

-- name: insert_daily_runs
-- Store official runs and their players' streaks after them, in one statement; the
-- (player_id, day) key refuses a second run of a date (and with it the statement).
WITH runs AS (
    INSERT INTO daily_runs
        (id, player_id, day, sequence_id, moves, moves_digest, score, shut, best_possible,
         response, submitted_at)
    SELECT id, player_id, day, sequence_id, moves::jsonb, moves_digest, score, shut,
           best_possible, response::json, submitted_at
    FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::text[], $5::text[], $6::bytea[],
                $7::int[], $8::bool[], $9::int[], $10::text[], $11::timestamptz[])
        AS n(id, player_id, day, sequence_id, moves, moves_digest, score, shut,
             best_possible, response, submitted_at)
    RETURNING player_id
)
INSERT INTO streaks (player_id, latest_length, best, last_played)
SELECT * FROM unnest($12::uuid[], $13::int[], $14::int[], $15::date[])
ON CONFLICT (player_id) DO UPDATE
SET latest_length = EXCLUDED.latest_length, best = EXCLUDED.best,
    last_played = EXCLUDED.last_played;

-- name: streak
-- A player's streak row and whether they have played the given date.
SELECT s.latest_length, s.best, s.last_played,
       EXISTS (SELECT 1 FROM daily_runs r WHERE r.player_id = $1 AND r.day = $2) AS played_day
FROM streaks s WHERE s.player_id = $1;

-- name: day_run_count
-- How many official runs a date has: whether its Redis set misses any.
SELECT count(*) FROM daily_runs WHERE day = $1;

-- name: day_scores
-- Every (player, score) of a date: rebuilds the Redis leaderboard.
SELECT player_id, score FROM daily_runs WHERE day = $1;

-- name: day_histogram
-- The day's scores: how many players ended on each, and how many shut the box.
SELECT score, count(*) AS players FROM daily_runs WHERE day = $1 GROUP BY score ORDER BY score;

-- name: day_leaderboard
-- A date's leaderboard in one statement, so from one snapshot: how many players ended on
-- each score, and the best $2 runs, best first (ties in order of submission). Every
-- score of the top list is one of the histogram's, whatever is committed meanwhile.
WITH histogram AS (
    SELECT score, count(*)::int AS players FROM daily_runs WHERE day = $1 GROUP BY score
), top AS (
    SELECT p.name, r.score, row_number() OVER (ORDER BY r.score, r.submitted_at, r.id) AS place
    FROM daily_runs r JOIN players p ON p.id = r.player_id
    WHERE r.day = $1
    ORDER BY r.score, r.submitted_at, r.id
    LIMIT $2
)
SELECT ARRAY(SELECT score FROM histogram ORDER BY score) AS scores,
       ARRAY(SELECT players FROM histogram ORDER BY score) AS players,
       ARRAY(SELECT name FROM top ORDER BY place) AS top_names,
       ARRAY(SELECT score FROM top ORDER BY place) AS top_scores;

-- name: history
-- A player's official runs, newest first, before a date.
SELECT day, score, shut FROM daily_runs
WHERE player_id = $1 AND day < $2
ORDER BY day DESC
LIMIT $3;

-- name: leaderboard_epoch
-- The epoch of a date's Redis leaderboard (0 until a Redis write of that date failed).
SELECT COALESCE((SELECT epoch FROM leaderboard_epochs WHERE day = $1), 0);

-- name: bump_leaderboard_epochs
-- Runs of these dates are missing from Redis: every process rebuilds their sets before use.
INSERT INTO leaderboard_epochs (day, epoch) SELECT unnest($1::date[]), 1
ON CONFLICT (day) DO UPDATE SET epoch = leaderboard_epochs.epoch + 1;
