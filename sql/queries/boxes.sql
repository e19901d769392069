-- name: insert_box
-- Create a box; a clash of random codes is refused by the key (the caller retries).
INSERT INTO boxes (code, owner_id, sequence_id, created_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT (code) DO NOTHING
RETURNING code;

-- name: insert_box_of_deal
-- Create a box of a round its owner played on a deal ($5 the deal's id, $6 the hints the
-- owner took); a clash of random codes is refused by the key (the caller retries), a deal
-- that made a box already by the deal_id key: no row, and box_of_deal names that box.
INSERT INTO boxes (code, owner_id, sequence_id, created_at, from_run, deal_id, hints_used)
VALUES ($1, $2, $3, $4, true, $5, $6)
ON CONFLICT DO NOTHING
RETURNING code;

-- name: box_of_deal
-- The code of the box a deal made, if any.
SELECT code FROM boxes WHERE deal_id = $1;

-- name: box
-- A box with its owner's name and how many players have played it.
SELECT b.code, b.owner_id, b.sequence_id, p.name AS owner_name, b.hints_used,
       (SELECT count(*) FROM box_runs r WHERE r.box_code = b.code) AS players
FROM boxes b JOIN players p ON p.id = b.owner_id
WHERE b.code = $1;

-- name: box_run
-- A player's run of a box.
SELECT id, mode, moves_digest, score, shut, open_tiles, response::text AS response, submitted_at
FROM box_runs WHERE box_code = $1 AND player_id = $2;

-- name: insert_box_run
-- Store a player's run of a box; the (box_code, player_id) key refuses a second one. A
-- player who was shown the owner's result plays a target run, whatever mode $4 says.
INSERT INTO box_runs
    (id, box_code, player_id, mode, moves, moves_digest, score, shut, open_tiles, response,
     submitted_at)
VALUES ($1, $2, $3,
        CASE WHEN EXISTS (SELECT 1 FROM box_target_views v
                          WHERE v.box_code = $2 AND v.player_id = $3)
             THEN 'target' ELSE $4::text END,
        $5, $6, $7, $8, $9, $10::text::json, $11)
ON CONFLICT (box_code, player_id) DO NOTHING
RETURNING id;

-- name: box_results
-- A page of everyone's results on a box, best first (ties in order of play, then of id, so
-- that every page is cut from the same order): $2 rows after the first $3, read in the order
-- of the index box_runs_by_box_score, the players joined to that page alone (on a box of
-- 200,000 runs: the first page 2 ms, against 270 ms for the whole list; the page after
-- 100,000 runs 115 ms, against 255 ms with the players joined before the offset).
SELECT r.player_id, p.name, r.score, r.shut, r.mode, r.submitted_at
FROM (
    SELECT id, player_id, score, shut, mode, submitted_at FROM box_runs
    WHERE box_code = $1
    ORDER BY score, submitted_at, id
    LIMIT $2 OFFSET $3
) r JOIN players p ON p.id = r.player_id
ORDER BY r.score, r.submitted_at, r.id;

-- name: box_runs_scoring_below
-- How many runs of a box scored lower than $2: 1 + that is a run's place.
SELECT count(*) FROM box_runs WHERE box_code = $1 AND score < $2;

-- name: record_target_view
-- A player was shown the owner's result of a box: their run of it is a target run.
INSERT INTO box_target_views (box_code, player_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING;
