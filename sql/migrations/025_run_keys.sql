-- An official run's Idempotency-Key is kept with the run, in its row (#41): the run is
-- one a player and date, so its row is the key's record, written by the statement that
-- stores the run (daily_batch_write). A keyed run no longer writes an idempotency_keys
-- row of its own after it (a statement and a copy of its answer, for every run):
-- - request_key: the first 16 bytes of the key's SHA-256, as a uuid (16 bytes, fixed);
--   null for a run sent without a key;
-- - request_language: the language the key's request asked for (Accept-Language, as
--   negotiated; null: none), so that the answer again is written as it was first.
-- Both are null in every row stored before: nullable columns, no rewrite.
ALTER TABLE daily_runs ADD COLUMN request_key uuid, ADD COLUMN request_language text;

-- The answers kept for runs' keys before: the key is the run's now.
DELETE FROM idempotency_keys WHERE scope LIKE 'player:%:daily:%';
