-- name: insert_series
-- Create a series; a clash of random codes is refused by the key (the caller retries).
INSERT INTO series (code, creator_id, rules, format, shut_wins, computers, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (code) DO NOTHING
RETURNING code;

-- name: series
-- A series by its code.
SELECT code, creator_id, rules, format, shut_wins, computers, finished_at
FROM series WHERE code = $1;

-- name: lock_series
-- A series by its code, locked until the transaction ends: its joins and runs one at a time.
SELECT code, creator_id, rules, format, shut_wins, computers, finished_at
FROM series WHERE code = $1
FOR UPDATE;

-- name: series_seats
-- The players of a series with their names, by seat (the creator first).
SELECT sp.player_id, p.name, sp.seat
FROM series_players sp JOIN players p ON p.id = sp.player_id
WHERE sp.series_code = $1
ORDER BY sp.seat;

-- name: insert_series_player
-- A player takes a seat of a series; the keys refuse a player twice or a seat twice.
INSERT INTO series_players (series_code, player_id, seat, joined_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT DO NOTHING;

-- name: series_rounds
-- The rounds of a series issued so far, in order, with the computer seats' scores.
SELECT round, sequence_id, computer_scores
FROM series_rounds WHERE series_code = $1
ORDER BY round;

-- name: insert_series_round
-- Issue a round of a series: its sequence, the computer seats' runs.
INSERT INTO series_rounds
    (series_code, round, sequence_id, computer_moves, computer_scores, issued_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT DO NOTHING;

-- name: series_run_scores
-- Every player's score in every round of a series played so far.
SELECT player_id, round, score
FROM series_runs WHERE series_code = $1;

-- name: series_run
-- A player's run of a round of a series.
SELECT id, moves_digest, score, shut, response::text AS response, submitted_at
FROM series_runs WHERE series_code = $1 AND round = $2 AND player_id = $3;

-- name: insert_series_run
-- Store a player's run of a round; the (series_code, round, player_id) key refuses a second.
INSERT INTO series_runs
    (id, series_code, round, player_id, moves, moves_digest, score, shut, response,
     submitted_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::json, $10)
ON CONFLICT (series_code, round, player_id) DO NOTHING
RETURNING id;

-- name: finish_series
-- A series' last round is complete.
UPDATE series SET finished_at = $2 WHERE code = $1 AND finished_at IS NULL;

-- name: series_of_player
-- A page of the series player $1 is in, newest first: $2 NULL (every one) or the status
-- wanted; $3 the page size, $4 how many to pass over. The status is the one the standings
-- give (service.usecases.standings): finished once stored so; else open until round 1 is
-- complete, which (nobody is out before it, the computers play each round as it is issued)
-- is once every player's seat has a run of round 1. A test holds the two to agree.
SELECT s.code
FROM series_players mine
JOIN series s ON s.code = mine.series_code
WHERE mine.player_id = $1
  AND ($2::text IS NULL OR $2 = CASE
        WHEN s.finished_at IS NOT NULL THEN 'finished'
        WHEN (SELECT count(*) FROM series_runs r WHERE r.series_code = s.code AND r.round = 1)
             < (SELECT count(*) FROM series_players p WHERE p.series_code = s.code) THEN 'open'
        ELSE 'playing'
      END)
ORDER BY s.created_at DESC, s.code DESC
LIMIT $3 OFFSET $4;

-- name: series_by_codes
-- The series of the codes $1 (a page of a player's: 100 at most).
SELECT code, creator_id, rules, format, shut_wins, computers, finished_at
FROM series WHERE code = ANY ($1::text[]);

-- name: series_seats_by_codes
-- The players of the series $1 with their names, by series and seat.
SELECT sp.series_code, sp.player_id, p.name, sp.seat
FROM series_players sp JOIN players p ON p.id = sp.player_id
WHERE sp.series_code = ANY ($1::text[])
ORDER BY sp.series_code, sp.seat;

-- name: series_rounds_by_codes
-- The rounds issued of the series $1, by series and round, with the computer seats' scores.
SELECT series_code, round, sequence_id, computer_scores
FROM series_rounds WHERE series_code = ANY ($1::text[])
ORDER BY series_code, round;

-- name: series_run_scores_by_codes
-- Every player's score in every round played of the series $1.
SELECT series_code, player_id, round, score
FROM series_runs WHERE series_code = ANY ($1::text[]);
