"""The game in a browser: ``GET /play``, static files served by the service itself.

Plain HTML, CSS and JavaScript modules from ``service/web/play/`` (no build step),
talking to the same origin's ``/v1`` API. Nothing is fetched from another host: the
Content-Security-Policy allows this origin only. The files are read at start-up and
served fingerprinted (``/play/<digest>/app.js``, kept a year by the browser) and
compressed (gzip or brotli, as the client accepts): ``service.web.files``. The page
itself (``/play``) is revalidated on every load (``no-cache`` with its ETag), so a
deploy shows at once. Not part of the API document.

The page's words are English in its code, marked for gettext (domain ``play``); their
translations come from the catalogs ``service/locales/<language>/LC_MESSAGES/play.po``
and reach the page as ``GET /play/messages/<language>.json`` (not fingerprinted: the page
asks for them by that name, and revalidates them with their ETag; compressed too).
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any, Final

import msgspec
from litestar import Request, Response, Router, get
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.caching import cached
from service.support.i18n import DEFAULT, LANGUAGES, Language, catalog
from service.web.files import DIGEST_SHAPE, IMMUTABLE, REVALIDATE, PageFile, PageFiles, answer

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
def _messages_file(language: Language) -> PageFile:
    """The JSON of a language's messages and its ETag (computed once)."""
    return PageFile.of(msgspec.json.encode(page_messages(language)), "application/json")


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
    return await answer(request, _messages_file(language), REVALIDATE)


def play_router(directory: Path = PLAY_DIRECTORY) -> Router:
    """The page at ``/play`` (and ``/play/``, ``/play/index.html``: index.html), each of
    its files under the digest of them all (``/play/<digest>/app.js``, immutable) and at
    its own path (``/play/app.js``, revalidated), and its messages at
    ``/play/messages/<language>.json``; every answer with the page's headers. The files
    are those of ``directory`` at start-up (``service.web.files``)."""
    files = PageFiles(directory)

    @get("/", name="play/index", include_in_schema=False)
    async def index(request: Request[Any, Any, Any]) -> Response[bytes]:
        """``GET /play``: index.html, pointing at the files under the current digest."""
        files.refresh()
        return await answer(request, _found(files.get("index.html")), REVALIDATE)

    @get("/{path:path}", name="play", include_in_schema=False)
    async def page_file(
        request: Request[Any, Any, Any], path: FromPath[PurePath]
    ) -> Response[bytes]:
        """``GET /play/<digest>/<name>`` (immutable; another digest than the current one
        is a 404: a stale page, reloaded, gets the current one) or ``GET /play/<name>``."""
        first, _, rest = path.as_posix().lstrip("/").partition("/")
        if rest and DIGEST_SHAPE.fullmatch(first):
            if first != files.digest:
                files.refresh()  # another worker may have seen changed files first
            if first != files.digest:
                raise NotFoundException(
                    "The page's files have changed since this page was loaded: load /play again."
                )
            return await answer(request, _found(files.get(rest)), IMMUTABLE)
        files.refresh()
        name = f"{first}/{rest}" if rest else first
        return await answer(request, _found(files.get(name)), REVALIDATE)

    return Router(
        path="/play",
        route_handlers=[index, page_file, messages_file],
        middleware=[page_headers_middleware],
        include_in_schema=False,
    )


def _found(file: PageFile | None) -> PageFile:
    if file is None:
        raise NotFoundException("The page has no such file.")
    return file
