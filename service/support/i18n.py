"""The players' languages: English, Norwegian (bokmål), Dutch and German.

A request's language is the best match of its ``Accept-Language`` among ours, else the
language its player stored, else English. Human text (problem titles and details, the
share text, the rules' lines, the analysis labels' words) comes from gettext catalogs
(``service/locales/<language>/LC_MESSAGES/<domain>.po``, kept with ``pybabel``; see
``docs/languages.md``), compiled when first used; codes (problem types, labels, enum values, field
names) are the same in every language. Messages are templates with named values,
``_("tile {tile} is already closed", tile=4)``, so that a translation can put the
values where its language wants them; numbers and dates are formatted with Babel's CLDR
data for the language.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Final, Literal

from babel.dates import format_date
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.caching import cached

Language = Literal["en", "nb", "nl", "de"]
LANGUAGES: Final[tuple[Language, ...]] = ("en", "nb", "nl", "de")
DEFAULT: Final[Language] = "en"
LOCALES: Final = Path(__file__).parent.parent / "locales"
DOMAINS: Final = ("shutbox", "play")
_CATALOGS_KEPT: Final = len(LANGUAGES) * len(DOMAINS) * 2
"""Every language's domains, asked with the domain named or left to its default (a
cache keys on the arguments as given)."""

# Primary language tags we answer; Norwegian and Nynorsk readers get bokmål.
_OURS: Final[dict[str, Language]] = {
    **{language: language for language in LANGUAGES},
    "no": "nb",
    "nn": "nb",
}
_RANGE: Final = re.compile(r"^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$")
_QUALITY: Final = re.compile(r"^q=(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$")
_HEADER_LIMIT: Final = 512  # longer headers are read up to here


def negotiate(accept_language: str | None) -> Language | None:
    """Our language that ``Accept-Language`` prefers, or None when it names none of
    them (absent, garbage, only other languages). A wildcard takes English. Quality
    values order the choices (ties in header order); ``q=0`` refuses one.

    >>> negotiate("de-AT,de;q=0.9,en;q=0.8"), negotiate("nn"), negotiate("fr, *;q=0.1")
    ('de', 'nb', 'en')
    >>> negotiate("fr-FR"), negotiate(";;;"), negotiate(None)
    (None, None, None)
    """
    if not accept_language:
        return None
    return _negotiate(accept_language[:_HEADER_LIMIT])


@cached("accept_language", 1024)  # the headers of a few browsers, again and again
def _negotiate(accept_language: str) -> Language | None:
    choices: list[tuple[float, int, str]] = []
    for position, item in enumerate(accept_language.split(",")):
        tag, *parameters = (part.strip() for part in item.split(";"))
        if not _RANGE.match(tag):
            continue
        quality = 1.0
        for parameter in parameters:
            if _QUALITY.match(parameter.replace(" ", "")):
                quality = float(parameter.replace(" ", "")[2:])
        if quality > 0:
            choices.append((-quality, position, tag.lower()))
    for _quality, _position, tag in sorted(choices):
        if tag == "*":
            return DEFAULT
        language = _OURS.get(tag.split("-")[0])
        if language is not None:
            return language
    return None


@dataclass
class RequestLanguage:
    """What a request asked for, its player's choice, and whether text was written."""

    accept_language: str | None
    player_language: Language | None = None
    used: Language | None = None

    @property
    def language(self) -> Language:
        return negotiate(self.accept_language) or self.player_language or DEFAULT


_current: ContextVar[RequestLanguage | None] = ContextVar("language", default=None)


def current() -> Language:
    """The language of the request being answered (English outside of one)."""
    state = _current.get()
    if state is None:
        return DEFAULT
    state.used = state.language
    return state.used


def written_in() -> Language | None:
    """The language the request's answer has text in so far (None: no text yet)."""
    state = _current.get()
    return None if state is None else state.used


def write_in(language: str) -> None:
    """The request's answer is text written in ``language`` before (kept for an
    idempotency key): its Content-Language says so."""
    state = _current.get()
    if state is not None and language in LANGUAGES:
        state.used = language


def asked() -> Language | None:
    """The language the request asked for (its Accept-Language; None: none of ours)."""
    state = _current.get()
    return None if state is None else negotiate(state.accept_language)


@contextmanager
def asked_for(language: str | None) -> Iterator[None]:
    """Write as if the request had asked for ``language`` (``asked``; the player's own
    still counts where it is None): an answer kept for an idempotency key again, as its
    first request asked for it."""
    state = _current.get()
    if state is None:
        yield
        return
    was, state.accept_language = state.accept_language, language
    try:
        yield
    finally:
        state.accept_language = was


def player_language(language: Language | None) -> None:
    """The language the request's player stored: used when the request names none."""
    state = _current.get()
    if state is not None:
        state.player_language = language


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Write in this language, whatever the request asked (tests, the command line)."""
    token = _current.set(RequestLanguage(accept_language=language))
    try:
        yield
    finally:
        _current.reset(token)


@cached("catalogs", _CATALOGS_KEPT)
def catalog(language: Language, domain: str = "shutbox") -> Catalog | None:
    """The messages of a language's ``.po`` file (None: the language has none)."""
    path = LOCALES / language / "LC_MESSAGES" / f"{domain}.po"
    if not path.exists():
        return None
    with path.open("rb") as source:
        return read_po(source, locale=language, domain=domain)


@cached("translations", _CATALOGS_KEPT)
def translations(language: Language, domain: str = "shutbox") -> Translations:
    """The catalog of a language, compiled from its ``.po`` file when first used."""
    messages = catalog(language, domain)
    if messages is None:
        return Translations()
    compiled = io.BytesIO()
    write_mo(compiled, messages, use_fuzzy=False)
    compiled.seek(0)
    return Translations(compiled, domain=domain)


# What the OpenAPI document says of a field of human text.
LOCALISED: Final = "Localised: in the language Accept-Language chooses (else the player's)."


def _(message: str, /, **values: object) -> str:
    """A message in the request's language, its named values filled in."""
    text = translations(current()).gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, count: int, /, **values: object) -> str:
    """A message that depends on a count (``{count}`` is filled in, formatted)."""
    language = current()
    text = translations(language).ngettext(singular, plural, count)
    return text.format(count=number(count), **values)


def N_(message: str, /) -> str:
    """Marks a message for the catalogs where it is written; ``_`` translates it later."""
    return message


def number(value: float, digits: int = 0) -> str:
    """A number as the request's language writes it (``12.5``, ``12,5``)."""
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=current())


def long_date(day: date) -> str:
    """A date as the request's language writes it (November 29, 2026; 29. november 2026)."""
    return format_date(day, format="long", locale=current())


def language_middleware(app: ASGIApp) -> ASGIApp:
    """Keeps the request's Accept-Language for whatever writes text, and marks an answer
    that has text with its Content-Language (and Vary: Accept-Language)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        header = None
        for name, value in scope["headers"]:
            if name == b"accept-language":
                header = value.decode("latin-1")
                break
        state = RequestLanguage(accept_language=header)
        token = _current.set(state)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start" and state.used is not None:
                message["headers"] = [
                    *message.get("headers", []),
                    (b"content-language", state.used.encode()),
                    (b"vary", b"Accept-Language"),
                ]
            await send(message)

        try:
            await app(scope, receive, send_with_language)
        finally:
            _current.reset(token)

    return middleware
