"""PostgreSQL access (asyncpg) and the cache (Redis or in-process)."""
