-- When a newer variant's tables were last stored or read from here (a read touches the row
-- at most once an hour: no write for every read). The variants the rules sheets name stay
-- for good; of the others, PostgreSQL keeps the SHUTBOX_SOLVER_STORED used most recently,
-- and each store lets the least recently used beyond them go (service/store/tables.py):
-- a client asking for ever new variants cannot grow the table without bound.
ALTER TABLE solver_tables_of_rules ADD COLUMN used_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX solver_tables_of_rules_by_use ON solver_tables_of_rules (used_at);
