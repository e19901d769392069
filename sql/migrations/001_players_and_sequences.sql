-- Players and the dice sequences issued to them.

CREATE TABLE players (
    id          uuid PRIMARY KEY,
    name        text CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 40),
    time_zone   text NOT NULL DEFAULT 'UTC' CHECK (char_length(time_zone) BETWEEN 1 AND 64),
    -- SHA-256 of the bearer token: the token itself is shown once and never stored.
    token_hash  bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    created_at  timestamptz NOT NULL
);

-- Every sequence ever issued, with its dice: a later change of algorithm or secret
-- never changes a sequence that players have seen.
CREATE TABLE sequences (
    id          text PRIMARY KEY CHECK (id ~ '^(daily|box)/[A-Za-z0-9-]+$'),
    rules       jsonb NOT NULL,
    -- The rolls flattened: d1, d2 of roll 1, then of roll 2, ...
    dice        smallint[] NOT NULL CHECK (
                    cardinality(dice) BETWEEN 6 AND 26
                    AND cardinality(dice) % 2 = 0
                    AND 1 <= ALL (dice) AND 6 >= ALL (dice)),
    algorithm   text NOT NULL,
    issued_at   timestamptz NOT NULL
);
