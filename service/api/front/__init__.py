"""The front of the API: what a request meets before (and around) its handler.

In order, outermost first (``service.app.App`` puts them together):

1. the request log and metrics (``service.support.logs``), HEAD made GET, the body's deadline
   and a body left unread (``reading.body_in_time``);
2. the hot routes (``hot``): the Daily Dice feed, ``POST /v1/analyze`` and official
   daily runs answered before the framework by the handlers' own functions, each named
   in its handler's ``opt`` (``ByPath``, ``ByBody``); the routes come from the
   router, the rest goes to Litestar, whose router chooses the route (a request it
   finds none for meets the rate limits around it, ``ratelimit.unrouted_rate_limit``);
3. on a request routed to its handler, either way: the rate limits (``ratelimit``), as
   the handler declares them, once a request; one reading of the headers and the query
   string (``reading``); the hot routes answered from their paths (the feed); the
   language (``service.support.i18n``); those answered from their bodies (the hot
   POSTs): the service's middleware, the same on both ways.

``stack`` puts 3 together; ``addresses`` reads a client's address and network;
``answers`` sends what the front answers itself (the 429 among them); ``litestar`` is
the one module that touches Litestar's private API. The rate limits' buckets are the
store's (``service.store.buckets``).
"""
