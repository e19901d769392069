-- name: player_counters
-- A player's counters of their official daily runs and their streak: their streak row,
-- by key (none: no official run yet). Nothing of their runs is read.
SELECT latest_length, best, last_played, played, shut, score_total, best_possible_total,
       scores
FROM streaks WHERE player_id = $1;
