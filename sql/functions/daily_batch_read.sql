-- One round trip for a batch of official runs: the stored runs of its (player, date)
-- pairs, the players' streaks, and the dates a player played where a run is out of
-- order; each statement opens only its dates' monthly partitions (migrations 009 to 013
-- made it so; benchmarks/months.py measures it).
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
