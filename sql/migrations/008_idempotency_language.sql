-- The language a kept answer was written in (NULL: it has no text), so that the same
-- answer again says so too (Content-Language).
ALTER TABLE idempotency_keys ADD COLUMN language text;
