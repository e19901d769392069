-- A player's statistics over their official daily runs (GET /v1/players/me/stats), kept
-- as counters with each run stored, so that reading them costs one row by key after ten
-- years of play as after one day (service.store.daily).
--
-- Beside the streak, in its row, not in a table of their own: every player with an
-- official run has one streak row, and daily_batch_write already writes it with each
-- batch of their runs, under the player's lock, in the statement that stores the runs.
-- The counters ride on that update (no other row, index lookup or lock a run), and the
-- statistics are read with the streak in one lookup.
-- - played: the player's official runs; shut: those that shut the box (score 0);
-- - score_total, best_possible_total: the sums of their scores and of their best
--   possible scores (on each run's dice);
-- - scores: how many of them ended on each score, a JSON object (score: runs); scores
--   none ended on are left out. The daily's rules make 0..45, but nothing assumes it.
ALTER TABLE streaks
    ADD COLUMN played integer NOT NULL DEFAULT 0,
    ADD COLUMN shut integer NOT NULL DEFAULT 0,
    ADD COLUMN score_total bigint NOT NULL DEFAULT 0,
    ADD COLUMN best_possible_total bigint NOT NULL DEFAULT 0,
    ADD COLUMN scores jsonb NOT NULL DEFAULT '{}';

-- The runs stored so far, counted once (every player with a run has a streak row: both
-- are written in one statement).
UPDATE streaks s
SET played = c.played, shut = c.shut, score_total = c.score_total,
    best_possible_total = c.best_possible_total, scores = c.scores
FROM (
    SELECT d.player_id, sum(d.runs)::integer AS played,
           coalesce(sum(d.runs) FILTER (WHERE d.score = 0), 0)::integer AS shut,
           sum(d.score::bigint * d.runs)::bigint AS score_total,
           sum(d.best_possible_total)::bigint AS best_possible_total,
           jsonb_object_agg(d.score, d.runs) AS scores
    FROM (
        SELECT r.player_id, r.score, count(*) AS runs, sum(r.best_possible) AS best_possible_total
        FROM daily_runs r
        GROUP BY r.player_id, r.score
    ) d
    GROUP BY d.player_id
) c
WHERE c.player_id = s.player_id;

-- From now on a streak row is written with its counters (daily_batch_write adds a
-- batch's runs to them): no defaults, and a row that counts no run is refused. (Not
-- played >= best, which holds of every stored row: PostgreSQL checks the row an
-- INSERT ... ON CONFLICT proposes, here a batch's runs of the player, before it finds
-- the row to add them to.)
ALTER TABLE streaks
    ALTER COLUMN played DROP DEFAULT,
    ALTER COLUMN shut DROP DEFAULT,
    ALTER COLUMN score_total DROP DEFAULT,
    ALTER COLUMN best_possible_total DROP DEFAULT,
    ALTER COLUMN scores DROP DEFAULT,
    ADD CONSTRAINT streaks_count_their_runs CHECK (
        played >= 1 AND shut BETWEEN 0 AND played
        AND best_possible_total BETWEEN 0 AND score_total
    );

-- daily_batch_write adds each batch's runs to the counters:
-- sql/functions/daily_batch_write.sql. daily_batch_read reads the streak rows without
-- them: sql/functions/daily_batch_read.sql.
