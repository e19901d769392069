-- The exact tables of the variants that use a rules field added after the first five
-- (total, one_die_choice, first_must_close, stop_on_total, and the new move rules):
-- keyed by the whole rules object as the solver keys it (service/store/tables.py). The
-- earlier variants keep their rows in solver_tables, where they always were: their key
-- is unchanged, and a process that knows only those never meets a newer variant's row.
CREATE TABLE solver_tables_of_rules (
    -- The rules' solver key as canonical JSON (sorted keys, the newer fields only where
    -- they are not their defaults).
    rules      text NOT NULL,
    -- The version of the solver and of the packing that made the row (as in solver_tables).
    encoding   smallint NOT NULL CHECK (encoding >= 1),
    tables     bytea NOT NULL,
    solved_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (rules, encoding)
);
