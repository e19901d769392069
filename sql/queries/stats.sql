-- name: player_counters
-- A player's counters of their official daily runs and their streak: their streak row,
-- by key (none: no official run yet), and whether they played date $2 (their today).
-- Nothing else of their runs is read.
SELECT s.latest_length, s.best, s.last_played, s.freezes, s.weekly_length, s.weekly_best,
       s.played, s.shut, s.score_total, s.best_possible_total, s.scores,
       EXISTS (SELECT 1 FROM daily_runs r WHERE r.player_id = $1 AND r.day = $2) AS played_day
FROM streaks s WHERE s.player_id = $1;
