-- name: idempotency_lock
-- One request at a time per idempotency key, across every process (transaction-scoped).
SELECT pg_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0));

-- name: idempotency_get
-- The response first given for a key, if it is younger than the cut-off.
SELECT request_digest, status, body, language FROM idempotency_keys
WHERE scope = $1 AND key = $2 AND created_at > $3;

-- name: idempotency_put
-- Keep a response for its key (an expired entry for the same key is replaced).
INSERT INTO idempotency_keys (scope, key, request_digest, status, body, language, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (scope, key) DO UPDATE
SET request_digest = EXCLUDED.request_digest, status = EXCLUDED.status,
    body = EXCLUDED.body, language = EXCLUDED.language, created_at = EXCLUDED.created_at;

-- name: idempotency_expire
-- Forget keys older than the cut-off.
DELETE FROM idempotency_keys WHERE created_at <= $1;
