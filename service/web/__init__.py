"""The game in a browser: ``GET /play``, static files served by the service itself.

Plain HTML, CSS and JavaScript modules from ``service/web/play/`` (no build step),
talking to the same origin's ``/v1`` API. Nothing is fetched from another host: the
Content-Security-Policy allows this origin only. The files are revalidated on every
load (``no-cache`` with their ETag and Last-Modified), so a deploy shows at once.
Not part of the API document.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from litestar import Router
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router
from litestar.types import ASGIApp, Message, Receive, Scope, Send

PLAY_DIRECTORY: Final = Path(__file__).parent / "play"

CONTENT_SECURITY_POLICY: Final = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

PAGE_HEADERS: Final = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


def page_headers_middleware(app: ASGIApp) -> ASGIApp:
    """Add the page's security headers to every answer under ``/play``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *PAGE_HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return middleware


def play_router() -> Router:
    """The static files of the page at ``/play`` (``/play`` and ``/play/`` give index.html)."""
    return create_static_files_router(
        path="/play",
        directories=[PLAY_DIRECTORY],
        html_mode=True,
        name="play",
        include_in_schema=False,
        cache_control=CacheControlHeader(no_cache=True),
        middleware=[page_headers_middleware],
    )
