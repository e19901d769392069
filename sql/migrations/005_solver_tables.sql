-- The exact tables of each rules variant: solved once per deployment, in a solver
-- process, and shared by every process of the service (service/store/tables.py).

CREATE TABLE solver_tables (
    tiles      smallint NOT NULL CHECK (tiles BETWEEN 2 AND 12),
    one_die    text NOT NULL CHECK (one_die IN ('never', 'high_closed', 'sum_le_6')),
    move_rule  text NOT NULL CHECK (move_rule IN ('any', 'dice_or_sum', 'single')),
    scoring    text NOT NULL CHECK (scoring IN ('sum', 'count', 'digits')),
    -- The version of the solver and of the packing that made the row: a new version
    -- solves every variant anew, and rows of another version are never read.
    encoding   smallint NOT NULL CHECK (encoding >= 1),
    -- The final scores and solved values, packed (little-endian) and zlib-compressed.
    tables     bytea NOT NULL,
    solved_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tiles, one_die, move_rule, scoring, encoding)
);
