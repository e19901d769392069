-- One round trip for a batch of official runs, as one JSON object of four parts, each of
-- one shape (service.store.daily.BatchRead): "runs", the stored rows of daily_runs of its
-- (player, date) pairs ($2, $3); "streaks", the players' ($1) streaks (the rows of streaks
-- without their counters of runs, which the batch adds to: migration 017); "played",
-- where a run is out of order, the dates its player played (player id: dates; the
-- streak is walked again from them, its frozen dates too: migration 023); and
-- "histograms", the players of each date ($4) by score (date: {score: players}). First,
-- when $5, the players locked. Each statement opens only its dates' monthly partitions
-- (migrations 009 to 013 made it so; benchmarks/months.py measures it). Its times are
-- written in UTC, whatever the session's time zone.
DROP FUNCTION IF EXISTS daily_batch_read(uuid[], uuid[], date[], date[], boolean);
CREATE FUNCTION daily_batch_read(uuid[], uuid[], date[], date[], boolean) RETURNS json
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off SET TimeZone = 'UTC' AS $$
#variable_conflict use_column
DECLARE
    asked_day date;
    runs json[] := '{}';
    out_of_order uuid[];
    played json := '{}';
BEGIN
    IF $5 THEN
        PERFORM FROM players p WHERE p.id = ANY($1) ORDER BY p.id FOR UPDATE;
    END IF;
    FOREACH asked_day IN ARRAY $4 LOOP
        runs := runs || ARRAY(
            SELECT to_json(r)
            FROM daily_runs r
            WHERE r.day = asked_day
              AND r.player_id = ANY (ARRAY(
                  SELECT a.player_id FROM unnest($2, $3) AS a(player_id, day)
                  WHERE a.day = asked_day
              ))
        );
    END LOOP;
    out_of_order := ARRAY(
        SELECT a.player_id
        FROM unnest($2, $3) AS a(player_id, day)
        LEFT JOIN streaks s ON s.player_id = a.player_id
        GROUP BY a.player_id
        HAVING count(DISTINCT a.day) > 1 OR bool_or(a.day < s.last_played)
    );
    IF cardinality(out_of_order) > 0 THEN
        -- Each of them, those with no run stored too (two dates of a new player in one
        -- batch): the batch walks their dates, whatever order they come in.
        played := (
            SELECT json_object_agg(o.player_id, coalesce(d.days, '{}'))
            FROM unnest(out_of_order) AS o(player_id)
            LEFT JOIN LATERAL (
                SELECT array_agg(r.day) AS days
                FROM daily_runs r
                WHERE r.player_id = o.player_id
            ) d ON true
        );
    END IF;
    RETURN json_build_object(
        'runs', runs,
        'streaks', ARRAY(
            SELECT json_build_object('player_id', s.player_id, 'latest_length', s.latest_length,
                                     'best', s.best, 'last_played', s.last_played,
                                     'freezes', s.freezes, 'weekly_length', s.weekly_length,
                                     'weekly_best', s.weekly_best)
            FROM streaks s WHERE s.player_id = ANY($1)
        ),
        'played', coalesce(played, '{}'),
        'histograms', coalesce((
            SELECT json_object_agg(h.day, h.players)
            FROM (
                SELECT c.day, json_object_agg(c.score, c.players) AS players
                FROM (
                    SELECT c.day, c.score, sum(c.players)::integer AS players
                    FROM day_scores c
                    WHERE c.day = ANY($4) AND c.players > 0
                    GROUP BY c.day, c.score
                ) c
                GROUP BY c.day
            ) h
        ), '{}')
    );
END
$$;
