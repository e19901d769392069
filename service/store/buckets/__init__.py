"""Token buckets of the rate limits, by key: atomic across processes in Redis
(``shared``: one Lua script, the requests of a moment in one call), in this process
when Redis is absent or down (``local``), and the tokens a process takes of a large
bucket ahead of its next requests (``ahead``). What a key and a limit mean is the
API's (``service.api.front.ratelimit``)."""
