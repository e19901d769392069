"""The one module that reaches into Litestar's private API (names with a leading
underscore): what the front needs of the framework and the framework does not make
public. An upgrade of Litestar that changes any of it breaks here, and only here
(tests/integration/api/test_front_door.py runs every piece)."""

from __future__ import annotations

from collections.abc import Iterable
from types import FunctionType
from typing import Any, Final, cast

from litestar import Litestar
from litestar._asgi.utils import is_valid_host as _is_valid_host
from litestar._openapi.plugin import OpenAPIPlugin
from litestar.openapi.spec import OpenAPI
from litestar.routes import BaseRoute, HTTPRoute
from litestar.types import ASGIApp, Receive, Scope, Send
from litestar.utils.scope.state import ScopeState

_AUTOMATIC_OPTIONS: Final = "HTTPRoute.create_options_handler.<locals>.options_handler"


def is_valid_host(value: bytes) -> bool:
    """Whether the router takes this Host header (else it answers 400)."""
    return _is_valid_host(value)


def options_of_whole_paths(routes: Iterable[BaseRoute]) -> None:
    """Litestar 2 makes the automatic OPTIONS handler of a path with the route of the
    path's first handler, and keeps it when more handlers join the path (a controller
    registers its handlers one at a time): its ``Allow`` names the methods of that first
    route alone (``GET, OPTIONS`` for a path of GET and PATCH; litestar#4169, fixed in
    Litestar 3, which makes it once the routes are complete). Each is pointed at the
    route it answers for, the path's every method."""
    for route in routes:
        if not isinstance(route, HTTPRoute):
            continue
        handler, _model = route.route_handler_map["OPTIONS"]
        answer = handler.fn
        if not isinstance(answer, FunctionType) or answer.__qualname__ != _AUTOMATIC_OPTIONS:
            continue  # an OPTIONS handler of the app's own
        (bound,) = answer.__closure__ or ()  # the route whose methods it names
        bound.cell_contents = route


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


def use_document(app: Litestar, document: OpenAPI) -> None:
    """Make ``document`` the app's OpenAPI document, as if it had generated it: Litestar
    builds the document of an app once, on first use, with no way to hand it one."""
    app.plugins.get(OpenAPIPlugin)._openapi = document
