-- A batch of official runs and a date's leaderboard open only their dates' monthly
-- partitions of daily_runs, not every month since launch (benchmarks/months.py).
--
-- daily_batch_read as migration 012 made it cost more with every month the service had
-- run: a batch of 12 runs took 1.39 times as long with 75 partitions (six years) as
-- with 4. Its statements keep a generic plan, in which PostgreSQL can leave out the
-- partitions a statement cannot read only where the date is known when it starts:
-- - the runs asked for were looked up by a date taken from each row of the batch, so
--   the scans of every partition were set up at every call. Now a statement per date
--   of the batch (one, or two around midnight), the date a parameter;
-- - the dates a player played, read only for a date out of order, had no date to
--   leave partitions out by at all, and their statement was set up at every call even
--   when it had no player to read. Now it runs only when a player needs it (the
--   rare case where it must read every month: a run before the player's last).
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
DECLARE
    asked_day date;
    out_of_order uuid[];
BEGIN
    IF $5 THEN
        PERFORM FROM players p WHERE p.id = ANY($1) ORDER BY p.id FOR UPDATE;
    END IF;
    FOREACH asked_day IN ARRAY $4 LOOP
        RETURN QUERY
        SELECT 'run', r.player_id, r.day, r.id, r.moves, r.score, r.best_possible,
               r.rank_better, r.rank_worse, r.rank_players, r.streak_current,
               r.streak_best, r.streak_last_played, r.played_today, r.submitted_at,
               NULL::integer[], NULL::integer[]
        FROM daily_runs r
        WHERE r.day = asked_day
          AND r.player_id = ANY (ARRAY(
              SELECT a.player_id FROM unnest($2, $3) AS a(player_id, day)
              WHERE a.day = asked_day
          ));
    END LOOP;
    RETURN QUERY
    SELECT 'streak', s.player_id, NULL::date, NULL::uuid, NULL::jsonb, NULL::integer,
           NULL::integer, NULL::integer, NULL::integer, NULL::integer, s.latest_length,
           s.best, s.last_played, NULL::boolean, NULL::timestamptz, NULL::integer[],
           NULL::integer[]
    FROM streaks s
    WHERE s.player_id = ANY($1);
    out_of_order := ARRAY(
        SELECT a.player_id
        FROM unnest($2, $3) AS a(player_id, day)
        LEFT JOIN streaks s ON s.player_id = a.player_id
        GROUP BY a.player_id
        HAVING count(DISTINCT a.day) > 1 OR bool_or(a.day < s.last_played)
    );
    IF cardinality(out_of_order) > 0 THEN
        RETURN QUERY
        SELECT 'played', r.player_id, r.day, NULL::uuid, NULL::jsonb, NULL::integer,
               NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::integer,
               NULL::integer, NULL::date, NULL::boolean, NULL::timestamptz,
               NULL::integer[], NULL::integer[]
        FROM daily_runs r
        WHERE r.player_id = ANY(out_of_order);
    END IF;
    RETURN QUERY
    SELECT 'scores', NULL::uuid, h.day, NULL::uuid, NULL::jsonb, NULL::integer,
           NULL::integer, NULL::integer, NULL::integer, NULL::integer, NULL::integer,
           NULL::integer, NULL::date, NULL::boolean, NULL::timestamptz,
           array_agg(h.score ORDER BY h.score),
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

-- day_leaderboard planned its statement again at every call (PostgreSQL judged a plan
-- for the date and limit given cheaper than a generic one), and planning a statement
-- on a partitioned table costs more with every partition: 1.75 times as long a call
-- with 75 partitions as with 4. It now keeps its generic plan, which leaves the other
-- months out when it runs. A generic plan cannot know the limit ($2): it would take it
-- for a tenth of the date's runs and, on a date of a million, sort them all in
-- parallel (half a second a call). So the best 100 are read, a constant (the API's
-- most), and the first $2 of them kept: the date's index read in order, then stopped.
CREATE OR REPLACE FUNCTION day_leaderboard(date, integer)
RETURNS TABLE (scores integer[], players integer[], top_names text[], top_scores integer[])
LANGUAGE plpgsql STABLE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN QUERY
    WITH histogram AS (
        SELECT c.score, sum(c.players)::int AS players
        FROM day_scores c WHERE c.day = $1 AND c.players > 0
        GROUP BY c.score
    ), top AS (
        SELECT p.name, r.score, r.place
        FROM (
            SELECT d.player_id, d.score,
                   row_number() OVER (ORDER BY d.score, d.submitted_at) AS place
            FROM (SELECT d.player_id, d.score, d.submitted_at FROM daily_runs d
                  WHERE d.day = $1 AND d.score >= 0
                  ORDER BY d.score, d.submitted_at LIMIT 100) d
        ) r
        CROSS JOIN LATERAL (SELECT p.name FROM players p WHERE p.id = r.player_id LIMIT 1) p
        WHERE r.place <= $2
    )
    SELECT ARRAY(SELECT h.score FROM histogram h ORDER BY h.score),
           ARRAY(SELECT h.players FROM histogram h ORDER BY h.score),
           ARRAY(SELECT t.name FROM top t ORDER BY t.place),
           ARRAY(SELECT t.score FROM top t ORDER BY t.place);
END
$$;
