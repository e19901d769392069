-- A date's histogram and its top list in one statement, reading at most the top's
-- runs by key, whatever the planner saw (migrations 012 and 013).
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
