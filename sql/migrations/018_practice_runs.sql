-- The archive: practice runs of Daily Dice dates that have closed everywhere. Never
-- official: no streak, no rank, nothing of daily_runs or day_scores; where a practice
-- run would have ranked is rendered from the date's histogram when it is shown.
--
-- One per player and date, the latest kept (a key, not an if): a player's practice
-- runs are bounded by the dates there are (one row a date at most, as their official
-- runs), and the list pages by date back from the newest, as the history does.
CREATE TABLE practice_runs (
    player_id     uuid NOT NULL REFERENCES players (id),
    day           date NOT NULL,
    moves         jsonb NOT NULL,
    score         integer NOT NULL CHECK (score >= 0),
    best_possible integer NOT NULL CHECK (best_possible BETWEEN 0 AND score),
    played_at     timestamptz NOT NULL,
    PRIMARY KEY (player_id, day)
);
