-- Friends (PRODUCT.md §9): a friend code per player, and friendships, a row each way.

-- A player's friend code: at most one at a time (a new one replaces, and so revokes,
-- the last). Not a secret (it is shared), so kept as it is; found by its own index.
CREATE TABLE friend_codes (
    player_id   uuid PRIMARY KEY REFERENCES players (id),
    -- Crockford base32, 8 random symbols and a check symbol (service/codes.py), as a box's.
    code        text NOT NULL UNIQUE CHECK (code ~ '^[0-9A-HJKMNP-TV-Z]{9}$'),
    created_at  timestamptz NOT NULL
);

-- Two friends are two rows, one each way, so that a player's friends are one range of
-- the key. The reverse row must exist by the end of the transaction that writes one:
-- a friendship is both ways or not at all (a key, not an if).
CREATE TABLE friendships (
    player_id  uuid NOT NULL REFERENCES players (id),
    friend_id  uuid NOT NULL REFERENCES players (id),
    since      timestamptz NOT NULL,
    PRIMARY KEY (player_id, friend_id),
    CHECK (player_id <> friend_id),
    FOREIGN KEY (friend_id, player_id) REFERENCES friendships (player_id, friend_id)
        DEFERRABLE INITIALLY DEFERRED
);
