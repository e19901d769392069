-- Fair play without following the boxes table: each box keeps the key that decides its
-- dice's analysis (service/rules/fairplay.py) and whether that key carries the mark of
-- box dice, so that any process refuses a box's dice, from the moment it is made, with
-- one indexed lookup. The boxes made before are given their keys at start-up (in
-- Python, where the key is computed); those without the mark are the only ones a
-- process holds in memory.
ALTER TABLE boxes ADD COLUMN dice_key bigint;
ALTER TABLE boxes ADD COLUMN dice_key_marked boolean;
CREATE INDEX boxes_by_dice_key ON boxes (dice_key);
CREATE INDEX boxes_unmarked ON boxes (dice_key) WHERE NOT dice_key_marked;
CREATE INDEX boxes_without_dice_key ON boxes (code) WHERE dice_key IS NULL;
DROP INDEX boxes_by_stored;
