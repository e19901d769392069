-- One round trip to store a batch of official runs: lock the players in order, refuse
-- (serialization_failure) if a streak changed since the read, insert the runs, the
-- streaks with the counters of each player's runs (played, shut, the sums of scores and
-- best possible scores, runs by score: $2's played ... scores, the batch's runs of the
-- player, added to those stored; migration 017), the dates freezes covered before the
-- runs (each streak's "frozen"; where the streak was walked again from the dates, those
-- from "refrozen_from" on replace the stored ones: migration 023) and the date's score
-- counters; every row by key (migrations 010 to 012). A run keeps the Idempotency-Key it
-- was sent with (migration 025).
CREATE OR REPLACE FUNCTION daily_batch_write(jsonb, jsonb, smallint) RETURNS void
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off
SET enable_material = off SET jit = off AS $$
BEGIN
    PERFORM FROM players p
    WHERE p.id = ANY (ARRAY(SELECT e.player_id FROM jsonb_to_recordset($2) AS e(player_id uuid)))
    ORDER BY p.id FOR UPDATE;
    IF EXISTS (
        SELECT FROM jsonb_to_recordset($2)
            AS e(player_id uuid, was_length integer, was_best integer, was_last_played date,
                 was_freezes smallint, was_weekly_length integer, was_weekly_best integer)
        LEFT JOIN streaks s ON s.player_id = e.player_id
        WHERE (s.latest_length, s.best, s.last_played, s.freezes, s.weekly_length,
               s.weekly_best)
              IS DISTINCT FROM (e.was_length, e.was_best, e.was_last_played, e.was_freezes,
                                e.was_weekly_length, e.was_weekly_best)
    ) THEN
        RAISE EXCEPTION 'a player''s streak changed since the batch read it'
            USING ERRCODE = 'serialization_failure';
    END IF;
    DELETE FROM frozen_dates f
    USING jsonb_to_recordset($2) AS e(player_id uuid, refrozen_from date)
    WHERE e.refrozen_from IS NOT NULL
      AND f.player_id = e.player_id AND f.day >= e.refrozen_from;
    INSERT INTO frozen_dates (player_id, day)
    SELECT e.player_id, f.day
    FROM jsonb_to_recordset($2) AS e(player_id uuid, frozen date[]),
         unnest(e.frozen) AS f(day)
    ORDER BY 1, 2;
    WITH runs AS (
        INSERT INTO daily_runs
            (player_id, day, id, moves, score, best_possible, rank_better, rank_worse,
             rank_players, streak_current, streak_best, streak_last_played, played_today,
             submitted_at, streak_freezes, weekly_current, weekly_best, request_key,
             request_language)
        SELECT n.player_id, n.day, n.id, n.moves, n.score, n.best_possible, n.rank_better,
               n.rank_worse, n.rank_players, n.streak_current, n.streak_best,
               n.streak_last_played, n.played_today, n.submitted_at, n.streak_freezes,
               n.weekly_current, n.weekly_best, n.request_key, n.request_language
        FROM jsonb_to_recordset($1)
            AS n(player_id uuid, day date, id uuid, moves jsonb, score integer,
                 best_possible integer, rank_better integer, rank_worse integer,
                 rank_players integer, streak_current integer, streak_best integer,
                 streak_last_played date, played_today boolean, submitted_at timestamptz,
                 streak_freezes smallint, weekly_current integer, weekly_best integer,
                 request_key uuid, request_language text)
        RETURNING daily_runs.day, daily_runs.score
    ), streaks_after AS (
        INSERT INTO streaks AS s
            (player_id, latest_length, best, last_played, freezes, weekly_length,
             weekly_best, played, shut, score_total, best_possible_total, scores)
        SELECT e.player_id, e.latest_length, e.best, e.last_played, e.freezes,
               e.weekly_length, e.weekly_best, e.played, e.shut, e.score_total,
               e.best_possible_total, e.scores
        FROM jsonb_to_recordset($2)
            AS e(player_id uuid, latest_length integer, best integer, last_played date,
                 freezes smallint, weekly_length integer, weekly_best integer,
                 played integer, shut integer, score_total bigint,
                 best_possible_total bigint, scores jsonb)
        ON CONFLICT (player_id) DO UPDATE
        SET latest_length = EXCLUDED.latest_length, best = EXCLUDED.best,
            last_played = EXCLUDED.last_played, freezes = EXCLUDED.freezes,
            weekly_length = EXCLUDED.weekly_length, weekly_best = EXCLUDED.weekly_best,
            played = s.played + EXCLUDED.played, shut = s.shut + EXCLUDED.shut,
            score_total = s.score_total + EXCLUDED.score_total,
            best_possible_total = s.best_possible_total + EXCLUDED.best_possible_total,
            -- Each score of the batch's runs added to its stored count (one key a score).
            scores = s.scores || coalesce((
                SELECT jsonb_object_agg(
                    added.key,
                    added.value::integer + coalesce((s.scores ->> added.key)::integer, 0))
                FROM jsonb_each_text(EXCLUDED.scores) AS added
            ), '{}')
    )
    INSERT INTO day_scores AS c (day, score, shard, players)
    SELECT r.day, r.score, $3, count(*)::integer
    FROM runs r GROUP BY r.day, r.score ORDER BY r.day, r.score
    ON CONFLICT (day, score, shard) DO UPDATE SET players = c.players + EXCLUDED.players;
END
$$;
