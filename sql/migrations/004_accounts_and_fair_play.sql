-- Accounts that survive a new phone, time zones that can't replay the calendar,
-- Friend Box blind play that holds, and idempotency keys that never keep a token.

-- When the time zone last changed (NULL: never since creation), and the first date
-- still open to the player at that change: every earlier date has closed for the
-- player, and a later change of time zone never reopens it.
ALTER TABLE players
    ADD COLUMN time_zone_changed_at timestamptz,
    ADD COLUMN closed_before date;

-- One transfer code per player at a time (a new one replaces it), kept only as a
-- hash; spent by a claim, which records the hash of the token it handed out.
CREATE TABLE transfer_codes (
    player_id    uuid PRIMARY KEY REFERENCES players (id),
    code_hash    bytea NOT NULL UNIQUE CHECK (octet_length(code_hash) = 32),
    expires_at   timestamptz NOT NULL,
    claimed_with bytea CHECK (octet_length(claimed_with) = 32)
);

-- Players who were shown a box owner's result: their run of that box is a target run.
CREATE TABLE box_target_views (
    box_code   text NOT NULL REFERENCES boxes (code),
    player_id  uuid NOT NULL REFERENCES players (id),
    PRIMARY KEY (box_code, player_id)
);

-- The order boxes were stored in, so that every process can learn the new ones
-- (their dice are refused by the stateless analysis while the box is played).
ALTER TABLE boxes ADD COLUMN stored bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX boxes_by_stored ON boxes (stored);

-- Bodies kept for idempotent replays of player creation held bearer tokens: drop them.
DELETE FROM idempotency_keys WHERE scope = 'players';
