-- A player as the service reads it (service.store.players.PlayerRow): their row of
-- players, but its token's hash, as JSON, its times in UTC whatever the session's time
-- zone. Every query that answers with a player answers player_row(p), so a player's
-- columns are named in one place (the struct's fields pick what they read). It takes
-- any row (a row of players, as the queries give it) since functions are applied before
-- the migrations that make the table. NULL for no row.
CREATE OR REPLACE FUNCTION player_row(record) RETURNS jsonb
LANGUAGE plpgsql STABLE STRICT SET jit = off SET TimeZone = 'UTC' AS $$
BEGIN
    RETURN to_jsonb($1) - 'token_hash';
END
$$;
