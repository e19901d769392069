-- name: practice_keep
-- A player's practice run of a date: it replaces the one kept before, unless that one
-- was played later (two sent at once: the latest played stays).
INSERT INTO practice_runs AS kept (player_id, day, moves, score, best_possible, played_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (player_id, day) DO UPDATE
SET moves = EXCLUDED.moves, score = EXCLUDED.score, best_possible = EXCLUDED.best_possible,
    played_at = EXCLUDED.played_at
WHERE kept.played_at <= EXCLUDED.played_at;

-- name: practice_page
-- A player's practice runs, newest date first, before a date (the primary key's order).
SELECT day, score, best_possible, played_at FROM practice_runs
WHERE player_id = $1 AND day < $2
ORDER BY day DESC
LIMIT $3;
