-- name: sequence_by_id
-- The stored dice of a sequence, if it was ever issued.
SELECT id, rules, dice, algorithm FROM sequences WHERE id = $1;

-- name: insert_sequence
-- Store a sequence on first issue; a concurrent first issue keeps the row already there.
INSERT INTO sequences (id, rules, dice, algorithm, issued_at)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (id) DO NOTHING;
