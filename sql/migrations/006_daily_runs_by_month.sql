-- Daily runs at a million players a date: compact rows, partitioned by month, and a
-- date's ranking kept as a histogram of counters instead of a sort of its runs.

-- How many official runs of a date ended on each score, in a few shards per score so
-- that concurrent transactions rarely wait for the same counter row. Updated in the
-- transaction that stores the runs, once per batch.
CREATE TABLE day_scores (
    day      date NOT NULL,
    score    integer NOT NULL CHECK (score >= 0),
    shard    smallint NOT NULL CHECK (shard BETWEEN 0 AND 15),
    players  integer NOT NULL CHECK (players >= 0),
    PRIMARY KEY (day, score, shard)
);

-- The runs as they were stored so far: kept aside until they are copied below.
ALTER TABLE daily_runs RENAME TO daily_runs_before;
ALTER INDEX daily_runs_pkey RENAME TO daily_runs_before_pkey;
ALTER INDEX daily_runs_player_id_day_key RENAME TO daily_runs_before_player_id_day_key;
DROP INDEX daily_runs_by_day_score;

-- What an official run needs to be shown again, not a copy of its answer: the answer
-- is rendered from the moves on the date's dice, with the rank and the streak as they
-- stood at submission. The first accepted run per player and date is the official one:
-- a key, not an if. Partitioned by month (the service makes the partitions ahead), so
-- an old month can be detached and archived.
CREATE TABLE daily_runs (
    player_id          uuid NOT NULL REFERENCES players (id),
    day                date NOT NULL,
    id                 uuid NOT NULL,
    moves              jsonb NOT NULL,
    score              integer NOT NULL CHECK (score >= 0),
    best_possible      integer NOT NULL CHECK (best_possible BETWEEN 0 AND score),
    rank_better        integer NOT NULL CHECK (rank_better >= 0),
    rank_worse         integer NOT NULL CHECK (rank_worse >= 0),
    rank_players       integer NOT NULL CHECK (rank_better + rank_worse < rank_players),
    streak_current     integer NOT NULL CHECK (streak_current >= 0),
    streak_best        integer NOT NULL CHECK (streak_best >= streak_current),
    streak_last_played date NOT NULL,
    played_today       boolean NOT NULL,
    submitted_at       timestamptz NOT NULL,
    PRIMARY KEY (player_id, day)
) PARTITION BY RANGE (day);

-- The partition of daily runs of the month that holds a date, made if missing: the
-- service makes them two months ahead at start-up and every ten minutes.
-- make_daily_runs_partition is defined in sql/functions/make_daily_runs_partition.sql.

SELECT make_daily_runs_partition(day) FROM (SELECT DISTINCT day FROM daily_runs_before) AS d;

-- The runs stored so far, with the rank and streak their stored answers showed.
INSERT INTO daily_runs
    (player_id, day, id, moves, score, best_possible, rank_better, rank_worse, rank_players,
     streak_current, streak_best, streak_last_played, played_today, submitted_at)
SELECT player_id, day, id, moves, score, best_possible,
       (response::jsonb #>> '{rank,position}')::int - 1,
       round((response::jsonb #>> '{rank,percentile}')::numeric
             * (response::jsonb #>> '{rank,players}')::int / 100)::int,
       (response::jsonb #>> '{rank,players}')::int,
       (response::jsonb #>> '{streak,current}')::int,
       (response::jsonb #>> '{streak,best}')::int,
       (response::jsonb #>> '{streak,last_played}')::date,
       (response::jsonb #>> '{streak,played_today}')::boolean,
       submitted_at
FROM daily_runs_before;

INSERT INTO day_scores (day, score, shard, players)
SELECT day, score, 0, count(*) FROM daily_runs_before GROUP BY day, score;

DROP TABLE daily_runs_before;
DROP TABLE leaderboard_epochs;

-- The best runs of a date, best first (ties in order of submission): the top list reads
-- this index, never the whole date.
CREATE INDEX daily_runs_by_day_score ON daily_runs (day, score, submitted_at);
