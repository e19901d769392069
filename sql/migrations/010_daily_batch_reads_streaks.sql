-- A batch of official runs in two round trips, and what it reads no longer grows with
-- its players' histories (service.store.daily).
--
-- daily_batch_read (replacing migration 009's) reads each player's streak row, not
-- every date they played: a date played after the latest one extends the streak row
-- (service.calendar.streak_after). Only a player with a date of the batch before their
-- latest played date (played out of order, during the grace after midnight) or with
-- several dates in the batch needs the dates played. Its new last argument says
-- whether to lock the batch's players first (a batch in a transaction of its own) or
-- not (a batch that writes with daily_batch_write, which checks what was read).
-- Its rows, by kind:
-- - 'run': the stored runs of the batch's (player, date) pairs ($2, $3);
-- - 'streak': the streak row of a player of the batch ($1): streak_current,
--   streak_best and streak_last_played hold its latest_length, best and last_played;
-- - 'played': the dates played (only player_id and day are set), for the players above;
-- - 'scores': the histogram of a date of the batch ($4), one row a date: how many runs
--   ended on each score (only day, scores and players are set: the scores, and the
--   runs of each, in two arrays in the same order).
-- Each statement of a volatile function sees what was committed before it began: with
-- the lock, the runs of the batches that held the locks before. PL/pgSQL keeps the
-- statements' plans for the session (a SQL function plans them at every call).
DROP FUNCTION daily_batch_read(uuid[], uuid[], date[], date[]);
CREATE FUNCTION daily_batch_read(uuid[], uuid[], date[], date[], boolean)
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
LANGUAGE plpgsql VOLATILE AS $$
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
    FROM daily_runs r
    WHERE (r.player_id, r.day) IN (SELECT * FROM asked)
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

-- Store official runs ($1: a JSON array of them, with the columns of daily_runs), their
-- players' streaks after them ($2: a JSON array of streak rows, each with the row the
-- runs were computed from: was_length, was_best, was_last_played, all null for none) and
-- their dates' histogram counters (in one shard, $3), in one statement of its own:
-- first lock the runs' players, in the order daily_batch_read locks them; then, if a
-- player's streak row is not what the runs were computed from, store nothing and fail
-- with serialization_failure (40001): a run of the player was stored meanwhile, the
-- batch must be computed again. The (player_id, day) key refuses a second run of a date
-- (and with it the statement). The counters are updated in the order (date, score)
-- everywhere so that two transactions never deadlock. JSON, not an array a column: the
-- client encodes one argument instead of a dozen.
CREATE FUNCTION daily_batch_write(jsonb, jsonb, smallint) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM FROM players p
    WHERE p.id = ANY (ARRAY(SELECT e.player_id FROM jsonb_to_recordset($2) AS e(player_id uuid)))
    ORDER BY p.id FOR UPDATE;
    IF EXISTS (
        SELECT FROM jsonb_to_recordset($2)
            AS e(player_id uuid, was_length integer, was_best integer, was_last_played date)
        LEFT JOIN streaks s ON s.player_id = e.player_id
        WHERE (s.latest_length, s.best, s.last_played)
              IS DISTINCT FROM (e.was_length, e.was_best, e.was_last_played)
    ) THEN
        RAISE EXCEPTION 'a player''s streak changed since the batch read it'
            USING ERRCODE = 'serialization_failure';
    END IF;
    WITH runs AS (
        INSERT INTO daily_runs
            (player_id, day, id, moves, score, best_possible, rank_better, rank_worse,
             rank_players, streak_current, streak_best, streak_last_played, played_today,
             submitted_at)
        SELECT n.player_id, n.day, n.id, n.moves, n.score, n.best_possible, n.rank_better,
               n.rank_worse, n.rank_players, n.streak_current, n.streak_best,
               n.streak_last_played, n.played_today, n.submitted_at
        FROM jsonb_to_recordset($1)
            AS n(player_id uuid, day date, id uuid, moves jsonb, score integer,
                 best_possible integer, rank_better integer, rank_worse integer,
                 rank_players integer, streak_current integer, streak_best integer,
                 streak_last_played date, played_today boolean, submitted_at timestamptz)
        RETURNING daily_runs.day, daily_runs.score
    ), streaks_after AS (
        INSERT INTO streaks AS s (player_id, latest_length, best, last_played)
        SELECT e.player_id, e.latest_length, e.best, e.last_played
        FROM jsonb_to_recordset($2)
            AS e(player_id uuid, latest_length integer, best integer, last_played date)
        ON CONFLICT (player_id) DO UPDATE
        SET latest_length = EXCLUDED.latest_length, best = EXCLUDED.best,
            last_played = EXCLUDED.last_played
    )
    INSERT INTO day_scores AS c (day, score, shard, players)
    SELECT r.day, r.score, $3, count(*)::integer
    FROM runs r GROUP BY r.day, r.score ORDER BY r.day, r.score
    ON CONFLICT (day, score, shard) DO UPDATE SET players = c.players + EXCLUDED.players;
END
$$;
