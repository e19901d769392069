-- Make the monthly partition of daily_runs that holds a date, if it is not there yet
-- (first made in migration 006).
CREATE OR REPLACE FUNCTION make_daily_runs_partition(day date) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    month date := date_trunc('month', day)::date;
    name text := 'daily_runs_' || to_char(month, 'YYYY_MM');
BEGIN
    -- Most calls find it made: then no lock is taken on the parent at all.
    IF to_regclass(name) IS NOT NULL THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('make_daily_runs_partition'));
    EXECUTE format(
        'CREATE TABLE IF NOT EXISTS %I PARTITION OF daily_runs FOR VALUES FROM (%L) TO (%L)',
        name, month, (month + interval '1 month')::date
    );
END
$$;
