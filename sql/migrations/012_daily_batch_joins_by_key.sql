-- The batch of official runs reads its rows by key whatever the planner saw, completing
-- migration 011 (service.store.daily).
--
-- Migration 011 turned sequential scans off in the batch functions. Planned while the
-- tables were small (a new database; a new month's partition analysed after its first
-- runs), a plan still read a whole table or index at every batch, a plan kept until
-- the next ANALYZE: a hash or merge join (or a materialised inner side) over a full
-- scan of an index, instead of a lookup a row; the runs of a player and date looked up
-- through the index by (day, score, submitted_at), every run of the date; and the
-- players found by their tokens' hashes by a sequential scan of players. Now:
-- - the index by (day, score, submitted_at) serves the leaderboard alone: it is partial
--   on a condition every run meets (score >= 0, a CHECK) and only the leaderboard's
--   query names, so a lookup by player and date can only use the primary key;
-- - the batch functions join by nested loops without materialising: each row of the
--   batch looks up its rows by key;
-- - and JIT compilation is off for them: a method turned off still adds its huge
--   "disabled" cost where nothing else serves (a sort, say), which would put the plan
--   past jit_above_cost and compile it at every call (some 150 ms here, for a
--   statement that runs in 0.2).
-- - the players of a batch sent with tokens are found by daily_batch_read_by_tokens,
--   and the leaderboard read by day_leaderboard: functions with the same settings,
--   instead of queries that the client prepares (whose sessions the service runs with
--   sequential scans off: service.store.db).
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

-- daily_batch_read for runs sent with their players' bearer tokens, the players looked
-- up in the same round trip: the token hashes ($1) and the dates ($2) of the runs, one
-- each a run, and their dates sorted ($3). First a 'player' row for each token hash
-- that is a player's (player_id, token_hash and the columns of players_by_token), then
-- daily_batch_read's rows for the runs of the players found.
CREATE FUNCTION daily_batch_read_by_tokens(bytea[], date[], date[])
RETURNS TABLE (
    kind                 text,
    player_id            uuid,
    day                  date,
    id                   uuid,
    moves                jsonb,
    score                integer,
    best_possible        integer,
    rank_better          integer,
    rank_worse           integer,
    rank_players         integer,
    streak_current       integer,
    streak_best          integer,
    streak_last_played   date,
    played_today         boolean,
    submitted_at         timestamptz,
    scores               integer[],
    players              integer[],
    token_hash           bytea,
    name                 text,
    time_zone            text,
    created_at           timestamptz,
    time_zone_changed_at timestamptz,
    closed_before        date,
    language             text
)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH found AS MATERIALIZED (
        SELECT p.id, p.name, p.time_zone, p.created_at, p.time_zone_changed_at,
               p.closed_before, p.language, p.token_hash
        FROM players p
        WHERE p.token_hash = ANY($1)
    ), asked AS MATERIALIZED (
        SELECT f.id AS player_id, t.day, t.at
        FROM unnest($1, $2) WITH ORDINALITY AS t(token_hash, day, at)
        JOIN found f ON f.token_hash = t.token_hash
    )
    SELECT 'player', f.id, NULL::date, NULL::uuid, NULL::jsonb, NULL::integer,
           NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::integer,
           NULL::integer, NULL::date, NULL::boolean, NULL::timestamptz, NULL::integer[],
           NULL::integer[], f.token_hash, f.name, f.time_zone, f.created_at,
           f.time_zone_changed_at, f.closed_before, f.language
    FROM found f
    UNION ALL
    SELECT r.*, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM daily_batch_read(
        ARRAY(SELECT DISTINCT a.player_id FROM asked a ORDER BY 1),
        ARRAY(SELECT a.player_id FROM asked a ORDER BY a.at),
        ARRAY(SELECT a.day FROM asked a ORDER BY a.at),
        $3,
        false
    ) AS r;
END
$$;

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
