-- What a batch of official runs reads before it writes, in one round trip instead of
-- three (service.store.daily.submit_all), in the batch's transaction:
-- 1. lock the batch's players ($1), in one order everywhere so that two batches never
--    deadlock: their submissions are serialised (a streak is computed from the runs);
-- 2. then, as a statement of its own (each statement of a volatile function sees what
--    was committed before it began: the runs of the batches that held the locks
--    before): the stored runs of the batch's (player, date) pairs ($2, $3; kind 'run'),
--    the dates each player has played (kind 'played': only player_id and day are set,
--    a streak is computed from them), and how many runs of the batch's dates ($4)
--    ended on each score (kind 'score': only day, score and players are set).
-- PL/pgSQL keeps the statements' plans for the session (a SQL function plans them at
-- every call).
CREATE FUNCTION daily_batch_read(uuid[], uuid[], date[], date[])
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
    players            integer
)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
    PERFORM FROM players p WHERE p.id = ANY($1) ORDER BY p.id FOR UPDATE;
    RETURN QUERY
    SELECT 'run', r.player_id, r.day, r.id, r.moves, r.score, r.best_possible, r.rank_better,
           r.rank_worse, r.rank_players, r.streak_current, r.streak_best,
           r.streak_last_played, r.played_today, r.submitted_at, NULL::integer
    FROM daily_runs r
    WHERE (r.player_id, r.day) IN (SELECT * FROM unnest($2, $3))
    UNION ALL
    SELECT 'played', r.player_id, r.day, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL
    FROM daily_runs r
    WHERE r.player_id = ANY($1)
    UNION ALL
    SELECT 'score', NULL, s.day, NULL, NULL, s.score, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, sum(s.players)::integer
    FROM day_scores s
    WHERE s.day = ANY($4) AND s.players > 0
    GROUP BY s.day, s.score;
END
$$;
