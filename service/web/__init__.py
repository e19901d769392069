"""The game in a browser: ``GET /play``, static files served by the service itself.

Plain HTML, CSS and JavaScript modules from ``service/web/play/`` (no build step),
talking to the same origin's ``/v1`` API. Nothing is fetched from another host: the
Content-Security-Policy allows this origin only. The files are revalidated on every
load (``no-cache`` with their ETag and Last-Modified), so a deploy shows at once.
Not part of the API document.

The page's words are English in its code, marked for gettext (domain ``play``); their
translations come from the catalogs ``service/locales/<language>/LC_MESSAGES/play.po``
and reach the page as ``GET /play/messages/<language>.json``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

import msgspec
from litestar import Request, Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import NotFoundException
from litestar.file_system import BaseLocalFileSystem
from litestar.params import FromPath
from litestar.static_files import create_static_files_router
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from litestar.types.file_types import FileInfo

from service.caching import cached
from service.i18n import DEFAULT, LANGUAGES, Language, catalog

PLAY_DIRECTORY: Final = Path(__file__).parent / "play"
MESSAGES_DOMAIN: Final = "play"
_MESSAGE_FILES: Final[dict[str, Language]] = {f"{code}.json": code for code in LANGUAGES}

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


class PlayFiles(BaseLocalFileSystem):
    """The page's files on the local disk. A path the file system refuses (a NUL byte, a
    name too long, a character it cannot encode, a file taken for a directory) names no
    file: 404, like any other path with no file, not the framework's 500."""

    async def info(self, path: Any, **kwargs: Any) -> FileInfo:
        try:
            return await super().info(path, **kwargs)
        except (FileNotFoundError, PermissionError):
            raise
        except (OSError, ValueError) as refused:
            raise FileNotFoundError(f"no file at {path!r}") from refused


def page_headers_middleware(app: ASGIApp) -> ASGIApp:
    """Add the page's security headers to every answer under ``/play``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *PAGE_HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return middleware


def page_messages(language: Language) -> dict[str, str | list[str]]:
    """The page's messages in a language, from its ``play`` catalog: msgid → translation,
    a message with plural forms → the list of its forms in the catalog's order (keyed by
    its singular msgid). Messages not translated (or fuzzy) are left out: the page shows
    them in English. English has no catalog: the msgids are English."""
    entries = catalog(language, MESSAGES_DOMAIN) if language != DEFAULT else None
    messages: dict[str, str | list[str]] = {}
    for entry in entries or ():
        if not entry.id or entry.fuzzy:
            continue
        if isinstance(entry.id, tuple) and isinstance(entry.string, tuple):
            if all(entry.string):
                messages[entry.id[0]] = list(entry.string)
        elif isinstance(entry.id, str) and isinstance(entry.string, str) and entry.string:
            messages[entry.id] = entry.string
    return dict(sorted(messages.items()))


@cached("page_messages", len(LANGUAGES))
def _messages_file(language: Language) -> tuple[bytes, str]:
    """The JSON of a language's messages and its ETag (computed once)."""
    body = msgspec.json.encode(page_messages(language))
    return body, f'"{hashlib.sha256(body).hexdigest()[:32]}"'


@get(
    "/messages/{name:str}",
    name="play/messages",
    include_in_schema=False,
    media_type="application/json",
)
async def messages_file(request: Request[Any, Any, Any], name: FromPath[str]) -> Response[bytes]:
    """``GET /play/messages/<language>.json``: the page's messages in en, nb, nl or de."""
    language = _MESSAGE_FILES.get(name)
    if language is None:
        raise NotFoundException(f"The page's messages are {', '.join(_MESSAGE_FILES)}.")
    body, etag = _messages_file(language)
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers={"etag": etag})
    return Response(body, media_type="application/json", headers={"etag": etag})


def play_router() -> Router:
    """The static files of the page at ``/play`` (``/play`` and ``/play/`` give index.html),
    and its messages at ``/play/messages/<language>.json``."""
    router = create_static_files_router(
        path="/play",
        directories=[PLAY_DIRECTORY],
        file_system=PlayFiles(),
        html_mode=True,
        name="play",
        include_in_schema=False,
        cache_control=CacheControlHeader(no_cache=True),
        middleware=[page_headers_middleware],
    )
    router.register(messages_file)
    return router
