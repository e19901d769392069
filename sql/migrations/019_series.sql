-- Series: a game night over several rounds (PRODUCT.md §9). Players join by code; each
-- round is a sequence of its own, issued when the first player reaches it, with the
-- computer seats' runs stored then; one run per player per round.

-- A round's sequence is series/<code>/<round>. Every sequence stored so far passed the
-- narrower check this one replaces: not checked again (NOT VALID), no scan of them all.
ALTER TABLE sequences DROP CONSTRAINT sequences_id_check;
ALTER TABLE sequences ADD CONSTRAINT sequences_id_check CHECK (
    id ~ '^(daily|box)/[A-Za-z0-9-]+$' OR id ~ '^series/[0-9A-HJKMNP-TV-Z]{9}/[1-9][0-9]{0,2}$'
) NOT VALID;

CREATE TABLE series (
    -- Crockford base32, 8 random symbols and a check symbol (service/codes.py).
    code         text PRIMARY KEY CHECK (code ~ '^[0-9A-HJKMNP-TV-Z]{9}$'),
    creator_id   uuid NOT NULL REFERENCES players (id),
    rules        jsonb NOT NULL,
    -- {"kind": "rounds" | "to_score" | "elimination", ...} (service/series.py).
    format       jsonb NOT NULL CHECK (format ->> 'kind' IN ('rounds', 'to_score', 'elimination')),
    shut_wins    boolean NOT NULL,
    -- The computer seats, in this order: seats 1, 2, ... (the creator's is 0).
    computers    text[] NOT NULL
                 CHECK (computers <@ ARRAY['easy', 'medium', 'hard'] AND cardinality(computers) < 16),
    created_at   timestamptz NOT NULL,
    -- When its last round was complete: from then on its rounds' dice are out of play.
    finished_at  timestamptz
);

CREATE TABLE series_players (
    series_code  text NOT NULL REFERENCES series (code),
    player_id    uuid NOT NULL REFERENCES players (id),
    -- 0: the creator; then those who join, after the computer seats.
    seat         smallint NOT NULL CHECK (seat BETWEEN 0 AND 15),
    joined_at    timestamptz NOT NULL,
    PRIMARY KEY (series_code, player_id),
    UNIQUE (series_code, seat)
);

CREATE TABLE series_rounds (
    series_code      text NOT NULL REFERENCES series (code),
    round            smallint NOT NULL CHECK (round >= 1),
    sequence_id      text NOT NULL UNIQUE REFERENCES sequences (id),
    -- The key that decides the dice's analysis (service/rules/fairplay.py): marked dice
    -- of a series not finished are refused by POST /v1/analyze, as a box's are.
    dice_key         bigint NOT NULL,
    -- Each computer seat's run of the round's dice (series.computers order): moves, score.
    computer_moves   jsonb NOT NULL,
    computer_scores  bigint[] NOT NULL,
    issued_at        timestamptz NOT NULL,
    PRIMARY KEY (series_code, round)
);
CREATE INDEX series_rounds_by_dice_key ON series_rounds (dice_key);

CREATE TABLE series_runs (
    id            uuid PRIMARY KEY,
    series_code   text NOT NULL,
    round         smallint NOT NULL,
    player_id     uuid NOT NULL,
    moves         jsonb NOT NULL,
    moves_digest  bytea NOT NULL CHECK (octet_length(moves_digest) = 32),
    score         bigint NOT NULL CHECK (score >= 0),
    shut          boolean NOT NULL CHECK (shut = (score = 0)),
    -- The 201 body, returned as it was to an identical resubmission (json keeps bytes).
    response      json NOT NULL,
    submitted_at  timestamptz NOT NULL,
    UNIQUE (series_code, round, player_id),
    FOREIGN KEY (series_code, round) REFERENCES series_rounds (series_code, round),
    FOREIGN KEY (series_code, player_id) REFERENCES series_players (series_code, player_id)
);
