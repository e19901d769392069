-- name: default_statement_timeout
-- A new connection's statement timeout ($1, in milliseconds), for the session, unless
-- one is set already (by the server's configuration, the database, the role or the URL).
SELECT set_config('statement_timeout', $1, false)
WHERE current_setting('statement_timeout') = '0';
