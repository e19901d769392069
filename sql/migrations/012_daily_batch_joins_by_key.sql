-- The batch of official runs reads its rows by key whatever the planner saw, completing
-- migration 011 (service.store.daily).
--
-- Migration 011 turned sequential scans off in the batch functions. Planned while the
-- tables were small (a new database; a new month's partition analysed after its first
-- runs), a plan still read a whole table or index at every batch, a plan kept until
-- the next ANALYZE: a hash or merge join (or a materialised inner side) over a full
-- scan of an index, instead of a lookup a row; the runs of a player and date looked up
-- through the index by (day, score, submitted_at), every run of the date. Now:
-- - the index by (day, score, submitted_at) serves the leaderboard alone: it is partial
--   on a condition every run meets (score >= 0, a CHECK) and only the leaderboard's
--   query names, so a lookup by player and date can only use the primary key;
-- - the batch functions join by nested loops without materialising: each row of the
--   batch looks up its rows by key;
-- - the leaderboard is read by day_leaderboard, a function with the same settings,
--   instead of a query that the client prepares (the service's sessions run with
--   sequential scans off, service.store.db, but may join by hash);
-- - JIT compilation is off in these functions: a method turned off still adds its
--   huge "disabled" cost where nothing else serves (a sort, say), which would put the
--   plan past jit_above_cost and compile it at every call (some 150 ms here, for a
--   statement that runs in 0.2).
DROP INDEX daily_runs_by_day_score;
CREATE INDEX daily_runs_by_day_score ON daily_runs (day, score, submitted_at)
    WHERE score >= 0;

-- daily_batch_read as migration 010 made it, but for the runs asked for: each looked up
-- on its own (LATERAL ... LIMIT 1: the planner cannot turn it into a scan of the runs
-- joined to the batch).
-- daily_batch_read is defined in sql/functions/daily_batch_read.sql.

-- daily_batch_write's settings: sql/functions/daily_batch_write.sql.

-- A date's leaderboard (the query day_leaderboard was), with the same settings: the
-- best runs read from the index by (day, score, submitted_at) and their players by key,
-- not the date's runs sorted nor the players scanned, however few when planned.
-- day_leaderboard is defined in sql/functions/day_leaderboard.sql.
