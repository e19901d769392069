"""The one module that reaches into Litestar's private API (names with a leading
underscore): what the front needs of the framework and the framework does not make
public. An upgrade of Litestar that changes any of it breaks here, and only here
(tests/integration/api/test_front_door.py runs every piece)."""

from __future__ import annotations

from typing import Any, cast

from litestar import Litestar
from litestar._asgi.utils import is_valid_host as _is_valid_host
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState


def is_valid_host(value: bytes) -> bool:
    """Whether the router takes this Host header (else it answers 400)."""
    return _is_valid_host(value)


class RoutedBehind(Litestar):
    """Litestar with a layer of the app's own (``before_router``) between the framework's
    layers (exceptions, CORS) and its router: an error raised there is answered by the
    app's exception handlers, as one the router raises itself."""

    def before_router(self, router: ASGIApp) -> ASGIApp:
        """The layer around the router (the router itself unless a subclass says)."""
        return router

    def _create_asgi_handler(self) -> ASGIApp:
        router = self.asgi_router
        inner = self.before_router(router)

        async def before_routing(scope: Scope, receive: Receive, send: Send) -> None:
            ScopeState.from_scope(scope).exception_handlers = self.exception_handlers
            await inner(scope, receive, send)

        self.asgi_router = cast("Any", before_routing)  # called as the router is
        try:
            return super()._create_asgi_handler()
        finally:
            self.asgi_router = router
