-- Official daily runs, streaks and idempotency keys.

-- The first accepted run per player and date is the official one: a key, not an if.
CREATE TABLE daily_runs (
    id            uuid PRIMARY KEY,
    player_id     uuid NOT NULL REFERENCES players (id),
    day           date NOT NULL,
    sequence_id   text NOT NULL REFERENCES sequences (id),
    moves         jsonb NOT NULL,
    -- SHA-256 of the canonical moves: an identical resubmission is recognised by it.
    moves_digest  bytea NOT NULL CHECK (octet_length(moves_digest) = 32),
    score         integer NOT NULL CHECK (score >= 0),
    shut          boolean NOT NULL CHECK (shut = (score = 0)),
    best_possible integer NOT NULL CHECK (best_possible BETWEEN 0 AND score),
    -- The body of the 201 that accepted it, kept as sent (json, not jsonb: byte for byte)
    -- and returned as it was to an identical resubmission.
    response      json NOT NULL,
    submitted_at  timestamptz NOT NULL,
    UNIQUE (player_id, day)
);
CREATE INDEX daily_runs_by_day_score ON daily_runs (day, score);

-- The run of consecutive dates that ends at the latest played date, and the best run.
CREATE TABLE streaks (
    player_id     uuid PRIMARY KEY REFERENCES players (id),
    latest_length integer NOT NULL CHECK (latest_length >= 1),
    best          integer NOT NULL CHECK (best >= latest_length),
    last_played   date NOT NULL
);

-- Creating POSTs with an Idempotency-Key: the first response, kept for 24 hours.
CREATE TABLE idempotency_keys (
    scope          text NOT NULL,
    key            text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
    request_digest bytea NOT NULL,
    status         integer NOT NULL CHECK (status BETWEEN 200 AND 299),
    body           bytea NOT NULL,
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- Bumped when a run of the date could not be added to the Redis leaderboard: a Redis
-- sorted set built at another epoch is rebuilt before it is trusted again.
CREATE TABLE leaderboard_epochs (
    day   date PRIMARY KEY,
    epoch integer NOT NULL CHECK (epoch >= 0)
);
