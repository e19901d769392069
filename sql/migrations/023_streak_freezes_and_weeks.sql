-- Streak freezes and the weekly streak (PRODUCT.md §6), in the streak row, so that a
-- player's streak now is read from that row alone whatever their history
-- (service.support.calendar.streak_at), and written with it by the statement that stores
-- the runs (daily_batch_write), under the player's lock:
-- - freezes: held after last_played, 0..2 (each 7th consecutive date played earns one;
--   a date missed spends one, in date order);
-- - weekly_length, weekly_best: consecutive weeks (Monday to Sunday, of the player's
--   dates) with a date played, ending with last_played's week; the longest.
-- latest_length and best count dates played: a frozen date neither counts nor breaks.
ALTER TABLE streaks
    ADD COLUMN freezes smallint NOT NULL DEFAULT 0,
    ADD COLUMN weekly_length integer NOT NULL DEFAULT 1,
    ADD COLUMN weekly_best integer NOT NULL DEFAULT 1,
    ADD CONSTRAINT streaks_freezes_held CHECK (freezes BETWEEN 0 AND 2),
    ADD CONSTRAINT streaks_weeks CHECK (weekly_length >= 1 AND weekly_best >= weekly_length);

-- A run's answer shows the streak as it stood after it: with the freezes held then and
-- the weekly streak (the run's own week counts: 1 at least). The runs stored before
-- show what stood then: no freeze, and their own week (rewriting every row for a
-- figure shown again only while the run's date is open, to an identical resubmission,
-- is not worth it).
ALTER TABLE daily_runs
    ADD COLUMN streak_freezes smallint NOT NULL DEFAULT 0 CHECK (streak_freezes BETWEEN 0 AND 2),
    ADD COLUMN weekly_current integer NOT NULL DEFAULT 1 CHECK (weekly_current >= 1),
    ADD COLUMN weekly_best integer NOT NULL DEFAULT 1 CHECK (weekly_best >= weekly_current);

-- The dates a freeze covered, between two dates a player played (the history shows them);
-- those after the latest played date are read from the streak row until the next run
-- stores them. Written by daily_batch_write with the run after them.
CREATE TABLE frozen_dates (
    player_id uuid NOT NULL REFERENCES players (id),
    day       date NOT NULL,
    PRIMARY KEY (player_id, day)
);

-- The runs stored so far, walked once, date after date, as the service walks them
-- (service.support.calendar.streak_after): freezes earned on the dates played are
-- spent on the dates missed since, as if they had been there all along, so that a
-- streak walked again from the dates (a date played out of order) is this one. A
-- player with one run keeps the defaults, which are theirs.
CREATE TEMPORARY TABLE walked (
    player_id uuid PRIMARY KEY,
    latest_length integer NOT NULL,
    best integer NOT NULL,
    freezes smallint NOT NULL,
    weekly_length integer NOT NULL,
    weekly_best integer NOT NULL,
    frozen date[] NOT NULL
) ON COMMIT DROP;

DO $$
DECLARE
    played record;
    walking uuid;
    last_played date;
    length integer;
    best integer;
    freezes integer;
    weekly integer;
    weekly_best integer;
    frozen date[];
    missed integer;
    weeks integer;
BEGIN
    FOR played IN
        SELECT r.player_id, r.day
        FROM daily_runs r JOIN streaks s ON s.player_id = r.player_id AND s.played > 1
        ORDER BY r.player_id, r.day
    LOOP
        IF walking IS DISTINCT FROM played.player_id THEN
            IF walking IS NOT NULL THEN
                INSERT INTO walked
                VALUES (walking, length, best, freezes, weekly, weekly_best, frozen);
            END IF;
            walking := played.player_id;
            length := 1; best := 1; freezes := 0; weekly := 1; weekly_best := 1;
            frozen := '{}';
        ELSE
            missed := played.day - last_played - 1;
            frozen := frozen || ARRAY(
                SELECT last_played + n FROM generate_series(1, least(missed, freezes)) AS n
            );
            IF missed <= freezes THEN
                length := length + 1;
                freezes := freezes - missed;
            ELSE
                length := 1;
                freezes := 0;
            END IF;
            IF length % 7 = 0 THEN
                freezes := least(2, freezes + 1);
            END IF;
            best := greatest(best, length);
            -- Weeks from Monday 1 January of year 1.
            weeks := (played.day - date '0001-01-01') / 7 - (last_played - date '0001-01-01') / 7;
            weekly := CASE WHEN weeks <= 1 THEN weekly + weeks ELSE 1 END;
            weekly_best := greatest(weekly_best, weekly);
        END IF;
        last_played := played.day;
    END LOOP;
    IF walking IS NOT NULL THEN
        INSERT INTO walked VALUES (walking, length, best, freezes, weekly, weekly_best, frozen);
    END IF;
END
$$;

UPDATE streaks s
SET latest_length = w.latest_length, best = w.best, freezes = w.freezes,
    weekly_length = w.weekly_length, weekly_best = w.weekly_best
FROM walked w
WHERE w.player_id = s.player_id;

INSERT INTO frozen_dates (player_id, day)
SELECT w.player_id, f.day FROM walked w, unnest(w.frozen) AS f(day);

-- daily_batch_read reads the new columns with the streak rows, daily_batch_write writes
-- them, the frozen dates and the run's figures: sql/functions/daily_batch_read.sql,
-- sql/functions/daily_batch_write.sql.
