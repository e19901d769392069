-- The batch functions look their rows up by key, whatever the planner saw when it
-- planned them (service.store.daily).
--
-- PL/pgSQL keeps the plans of a function's statements for the session (a generic plan
-- after the first five calls). Planned while the month's partition of daily_runs, or
-- streaks, held few rows (a new database, a new month at midnight), a statement reads
-- the whole table by a sequential scan, a plan kept until the next ANALYZE of the
-- table: every batch then costs more with each run stored, minutes long under the rush
-- of a new date. Every row these functions read is found by a key of a few per
-- submission (a player, a player and date, a date), so an index scan is right at any
-- size: sequential scans are off for their statements.
ALTER FUNCTION daily_batch_read(uuid[], uuid[], date[], date[], boolean) SET enable_seqscan = off;
ALTER FUNCTION daily_batch_write(jsonb, jsonb, smallint) SET enable_seqscan = off;
