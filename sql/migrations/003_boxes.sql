-- Friend Boxes: a sequence behind a short code, and one run per player per box.

CREATE TABLE boxes (
    -- Crockford base32, 8 random symbols and a check symbol (service/codes.py).
    code         text PRIMARY KEY CHECK (code ~ '^[0-9A-HJKMNP-TV-Z]{9}$'),
    owner_id     uuid NOT NULL REFERENCES players (id),
    sequence_id  text NOT NULL UNIQUE REFERENCES sequences (id),
    created_at   timestamptz NOT NULL
);
CREATE INDEX boxes_by_owner ON boxes (owner_id);

CREATE TABLE box_runs (
    id            uuid PRIMARY KEY,
    box_code      text NOT NULL REFERENCES boxes (code),
    player_id     uuid NOT NULL REFERENCES players (id),
    mode          text NOT NULL CHECK (mode IN ('blind', 'target')),
    moves         jsonb NOT NULL,
    moves_digest  bytea NOT NULL CHECK (octet_length(moves_digest) = 32),
    score         bigint NOT NULL CHECK (score >= 0),
    shut          boolean NOT NULL CHECK (shut = (score = 0)),
    open_tiles    smallint[] NOT NULL,
    -- The 201 body, returned as it was to an identical resubmission (json keeps bytes).
    response      json NOT NULL,
    submitted_at  timestamptz NOT NULL,
    UNIQUE (box_code, player_id)
);
CREATE INDEX box_runs_by_box_score ON box_runs (box_code, score, submitted_at);
