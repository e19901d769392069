-- Fair play by construction (PRODUCT.md §6b): the hindsight figures of some dice are given
-- only for dice the service chose, so nothing recognises dice any more. The keys that
-- recognised a box's or a series round's dice in any disguise (014, 019, 020) go, with
-- their indexes (a column's indexes go with it).
ALTER TABLE boxes
    DROP COLUMN dice_key,
    DROP COLUMN dice_key_marked,
    DROP COLUMN dice_short_key;
ALTER TABLE series_rounds DROP COLUMN dice_key;

-- A box of a Solo round is made from a deal (POST /v1/deals): the deal's id, so that one
-- deal makes one box, and the hints its owner took on that round, shown with its target.
ALTER TABLE boxes
    ADD COLUMN deal_id uuid UNIQUE,
    ADD COLUMN hints_used smallint CHECK (hints_used >= 0);
