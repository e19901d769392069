-- The language a player reads (en, nb, nl, de): used for the text of a request that
-- names none in Accept-Language (a share text in particular). NULL: not chosen.
ALTER TABLE players
    ADD COLUMN language text CHECK (language IN ('en', 'nb', 'nl', 'de'));
