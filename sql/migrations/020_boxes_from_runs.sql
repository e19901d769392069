-- A box made of the dice of a run its owner played (POST /v1/boxes with from_run): its
-- dice are the player's own, so they carry the mark of box dice only by chance. Those
-- without it are kept in every process's memory (service/store/in_play.py): each
-- process loads their keys by the partial index boxes_unmarked (014) at start and at
-- every reconnect of its listener, and hears of new ones on the channel
-- shutbox_unmarked_boxes (pg_notify in the transaction that stores the box).
ALTER TABLE boxes ADD COLUMN from_run boolean NOT NULL DEFAULT false;

-- The short key of an unmarked box's dice (service/rules/fairplay.py, short_key): a
-- process holds them beside the keys, so that most dice are told apart from all those
-- boxes with two hashes. The boxes made before the mark get theirs at the next start-up.
ALTER TABLE boxes ADD COLUMN dice_short_key bigint;
CREATE INDEX boxes_without_short_key ON boxes (code)
    WHERE NOT dice_key_marked AND dice_short_key IS NULL;
