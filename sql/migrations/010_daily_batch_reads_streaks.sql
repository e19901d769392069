-- A batch of official runs reads each player's streak row, not every date they played
-- (migration 009 read them all: a cost that grew with the player's history, paid at
-- every submission with the batch's locks held). A date played after the latest one
-- extends the streak row (service.calendar.streak_after); only a player with a date of
-- the batch before their latest played date (played out of order, during the grace
-- after midnight) or with several dates in the batch needs the dates played.
-- Same arguments and rows as before, and one more kind of row:
-- - kind 'streak': the streak row of a player of the batch (player_id; streak_current,
--   streak_best and streak_last_played hold its latest_length, best and last_played);
-- - kind 'played' only for the players above.
CREATE OR REPLACE FUNCTION daily_batch_read(uuid[], uuid[], date[], date[])
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
           r.streak_last_played, r.played_today, r.submitted_at, NULL::integer
    FROM daily_runs r
    WHERE (r.player_id, r.day) IN (SELECT * FROM asked)
    UNION ALL
    SELECT 'streak', s.player_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           s.latest_length, s.best, s.last_played, NULL, NULL, NULL
    FROM streak s
    UNION ALL
    SELECT 'played', r.player_id, r.day, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, NULL
    FROM daily_runs r
    WHERE r.player_id = ANY (ARRAY(SELECT o.player_id FROM out_of_order o))
    UNION ALL
    SELECT 'score', NULL, s.day, NULL, NULL, s.score, NULL, NULL, NULL, NULL, NULL, NULL,
           NULL, NULL, NULL, sum(s.players)::integer
    FROM day_scores s
    WHERE s.day = ANY($4) AND s.players > 0
    GROUP BY s.day, s.score;
END
$$;
