-- The batch of official runs reads its rows by key whatever the planner saw, completing
-- migration 011 (service.store.daily).
--
-- Migration 011 turned sequential scans off in the batch functions. Planned while the
-- tables were small (a new database; a new month's partition analysed after its first
-- runs), a plan still read a whole table or index at every batch, a plan kept until
-- the next ANALYZE: a hash or merge join (or a materialised inner side) over a full
-- scan of an index, instead of a lookup a row; the runs of a player and date looked up
-- through the index by (day, score, submitted_at), every run of the date. Now:
-- - the index by (day, score, submitted_at) serves the leaderboard alone: it is partial
--   on a condition every run meets (score >= 0, a CHECK) and only the leaderboard's
--   query names, so a lookup by player and date can only use the primary key;
-- - the batch functions join by nested loops without materialising: each row of the
--   batch looks up its rows by key;
-- - the leaderboard is read by day_leaderboard, a function with the same settings,
--   instead of a query that the client prepares (the service's sessions run with
--   sequential scans off, service.store.db, but may join by hash);
-- - JIT compilation is off in these functions: a method turned off still adds its
--   huge "disabled" cost where nothing else serves (a sort, say), which would put the
--   plan past jit_above_cost and compile it at every call (some 150 ms here, for a
--   statement that runs in 0.2).
DROP INDEX daily_runs_by_day_score;
CREATE INDEX daily_runs_by_day_score ON daily_runs (day, score, submitted_at)
    WHERE score >= 0;

-- daily_batch_read as migration 010 made it, but for the runs asked for: each looked up
-- on its own (LATERAL ... LIMIT 1: the planner cannot turn it into a scan of the runs
-- joined to the batch).
CREATE OR REPLACE FUNCTION daily_batch_read(uuid[], uuid[], date[], date[], boolean)
RETURNS TABLE (
    kind               text,
    player_id          uuid,
    day                date,
    id                 uuid,
    moves              jsonb,
    score              integer,
    best_possible      integer,
    rank_better        integer,
    rank_worse         integer,
    rank_players       integer,
    streak_current     integer,
    streak_best        integer,
    streak_last_played date,
    played_today       boolean,
    submitted_at       timestamptz,
    scores             integer[],
    players            integer[]
)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
    IF $5 THEN
        PERFORM FROM players p WHERE p.id = ANY($1) ORDER BY p.id FOR UPDATE;
    END IF;
    RETURN QUERY
    WITH asked AS (
        SELECT a.player_id, a.day FROM unnest($2, $3) AS a(player_id, day)
    ), streak AS (
        SELECT s.player_id, s.latest_length, s.best, s.last_played
        FROM streaks s
        WHERE s.player_id = ANY($1)
    ), out_of_order AS (
        SELECT a.player_id
        FROM asked a LEFT JOIN streak s ON s.player_id = a.player_id
        GROUP BY a.player_id
        HAVING count(DISTINCT a.day) > 1 OR bool_or(a.day < s.last_played)
    )
    SELECT 'run', r.player_id, r.day, r.id, r.moves, r.score, r.best_possible, r.rank_better,
           r.rank_worse, r.rank_players, r.streak_current, r.streak_best,
           r.streak_last_played, r.played_today, r.submitted_at, NULL::integer[],
           NULL::integer[]
    FROM (SELECT DISTINCT a.player_id, a.day FROM asked a) AS a
    CROSS JOIN LATERAL (
        SELECT * FROM daily_runs r
        WHERE r.player_id = a.player_id AND r.day = a.day
        LIMIT 1
    ) AS r
    UNION ALL
    SELECT 'streak', s.player_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           s.latest_length, s.best, s.last_played, NULL, NULL, NULL, NULL
    FROM streak s
    UNION ALL
    SELECT 'played', r.player_id, r.day, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL, NULL
    FROM daily_runs r
    WHERE r.player_id = ANY (ARRAY(SELECT o.player_id FROM out_of_order o))
    UNION ALL
    SELECT 'scores', NULL, h.day, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, array_agg(h.score ORDER BY h.score),
           array_agg(h.players ORDER BY h.score)
    FROM (
        SELECT c.day, c.score, sum(c.players)::integer AS players
        FROM day_scores c
        WHERE c.day = ANY($4) AND c.players > 0
        GROUP BY c.day, c.score
    ) h
    GROUP BY h.day;
END
$$;

ALTER FUNCTION daily_batch_write(jsonb, jsonb, smallint)
    SET enable_hashjoin = off SET enable_mergejoin = off SET enable_material = off
    SET jit = off;

-- A date's leaderboard (the query day_leaderboard was), with the same settings: the
-- best runs read from the index by (day, score, submitted_at) and their players by key,
-- not the date's runs sorted nor the players scanned, however few when planned.
CREATE FUNCTION day_leaderboard(date, integer)
RETURNS TABLE (scores integer[], players integer[], top_names text[], top_scores integer[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off AS $$
BEGIN
    RETURN QUERY
    WITH histogram AS (
        SELECT c.score, sum(c.players)::int AS players
        FROM day_scores c WHERE c.day = $1 AND c.players > 0
        GROUP BY c.score
    ), top AS (
        SELECT p.name, r.score, row_number() OVER (ORDER BY r.score, r.submitted_at) AS place
        FROM (SELECT d.player_id, d.score, d.submitted_at FROM daily_runs d
              WHERE d.day = $1 AND d.score >= 0 ORDER BY d.score, d.submitted_at LIMIT $2) r
        CROSS JOIN LATERAL (SELECT p.name FROM players p WHERE p.id = r.player_id LIMIT 1) p
    )
    SELECT ARRAY(SELECT h.score FROM histogram h ORDER BY h.score),
           ARRAY(SELECT h.players FROM histogram h ORDER BY h.score),
           ARRAY(SELECT t.name FROM top t ORDER BY t.place),
           ARRAY(SELECT t.score FROM top t ORDER BY t.place);
END
$$;
