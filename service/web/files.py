"""The page's files, held in memory from start-up: fingerprinted, and compressed as the
client accepts.

At start-up the page's directory is read whole (its files, not hidden ones) and given a
**digest**, the first 16 hex digits of a SHA-256 over every file's name and bytes
(``PageFiles.digest``). Each file is served twice:

- under ``/play/<digest>/<name>``, with ``Cache-Control: public, max-age=31536000,
  immutable``: what that URL names never changes, so a browser keeps it a year without
  asking again. ``index.html`` (``/play``, ``/play/``) points at ``/play/<digest>/app.js``,
  ``style.css`` and ``favicon.svg``; the modules import each other by relative paths
  (``./ui.js``), so every import stays under the same digest. A digest other than the
  current one is a 404 (its files are gone: a reload of ``/play`` gets the new digest);
- at its own path (``/play/index.html``, ``/play/app.js``), with ``no-cache`` and an
  ETag (a 304 when it matches), as before fingerprinting.

The files are served from the copy read at start-up, never from the disk at request time
(what a digest names is what was read with it), and a request's path is only ever a key
looked up among them: a path no file system would take (a NUL byte, a name too long) is
a 404 like any other name of no file. The answers that revalidate (``/play``, a file at
its own path, an unknown digest) first compare the directory's names, sizes and
modification times with those read: when a file has changed (a developer's edit, a
worker that saw a deploy's files later than another), the directory is read again and
the digest follows. A worker that has not yet seen the change finds the new digest
unknown, looks, and then knows it.

**Compression**: gzip (level 9) and brotli (quality 11) of the text files (HTML, CSS,
JavaScript, JSON, SVG), chosen by the request's ``Accept-Encoding`` (its q-values
honoured; brotli first on a tie; none when the header is absent, says ``identity``, or
gives identity a higher q), with ``Vary: Accept-Encoding`` and each encoding its own
ETag. A file is compressed once per encoding, on first use, in a thread (brotli at
quality 11 takes some 20 ms for the largest file), and kept in the LRU
``page_encodings`` (at most ``ENCODINGS_BOUND`` entries: every file of the page in both
encodings, and the messages). Only the page's answers: the API's are never compressed.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import anyio.to_thread
import brotli  # type: ignore[import-untyped]
from litestar import Request, Response

from service.caching import LRU

Coding = Literal["br", "gzip"]
CODINGS: Final[tuple[Coding, ...]] = ("br", "gzip")  # on a tie of q-values, the first
DIGEST_LENGTH: Final = 16
DIGEST_SHAPE: Final = re.compile(f"[0-9a-f]{{{DIGEST_LENGTH}}}")
IMMUTABLE: Final = "public, max-age=31536000, immutable"
REVALIDATE: Final = "no-cache"
ENCODINGS_BOUND: Final = 128

# The page's kinds of file, named here rather than by the system's mimetypes table
# (which varies: .js is application/javascript on some).
_TYPES: Final = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
}
_COMPRESSIBLE: Final = ("text/", "application/json", "image/svg+xml")
_QVALUE: Final = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")
# A reference of index.html to one of the page's files, by its own path.
_REFERENCE: Final = re.compile(r"""(\b(?:src|href)=")/play/([^"?#]+)(")""")

ENCODINGS: Final[LRU[tuple[str, Coding], bytes]] = LRU("page_encodings", ENCODINGS_BOUND)


def media_type(name: str) -> str:
    suffix = Path(name).suffix.lower()
    return _TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"


@dataclass(frozen=True, slots=True)
class PageFile:
    """A file's bytes, its media type and its tag (the first 32 hex digits of its
    SHA-256: the ETag of its bytes as they are, ``"<tag>"``; an encoding's is
    ``"<tag>-<coding>"``)."""

    body: bytes
    media_type: str
    tag: str

    @classmethod
    def of(cls, body: bytes, media_type: str) -> PageFile:
        return cls(body, media_type, hashlib.sha256(body).hexdigest()[:32])

    @property
    def compressible(self) -> bool:
        return self.media_type.startswith(_COMPRESSIBLE)

    def etag(self, coding: Coding | None) -> str:
        return f'"{self.tag}"' if coding is None else f'"{self.tag}-{coding}"'


def _compress(body: bytes, coding: Coding) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=9, mtime=0)
    compressed: bytes = brotli.compress(body, quality=11)
    return compressed


async def encoded(file: PageFile, coding: Coding) -> bytes | None:
    """The file's body in ``coding`` (made in a thread once, then kept), or None where
    that would not be smaller than the body itself."""
    key = (file.tag, coding)
    body = ENCODINGS.get(key)
    if body is None:
        body = await anyio.to_thread.run_sync(_compress, file.body, coding)
        ENCODINGS.put(key, body)
    return body if len(body) < len(file.body) else None


def chosen_coding(accept_encoding: str | None) -> Coding | None:
    """The coding of ``CODINGS`` an ``Accept-Encoding`` header asks for most (RFC 9110,
    12.5.3; ``*`` stands for those it does not name), or None for the body as it is: no
    header, no coding of them with a q-value above 0, or ``identity`` given a higher
    q-value than the best of them (when the header names it, or ``*``). A q-value that
    is not one (``q=2``, ``q=high``) makes its coding unacceptable; ``x-gzip`` is gzip;
    of a coding named twice, the first counts.

    >>> chosen_coding("gzip, deflate, br, zstd"), chosen_coding("gzip;q=1, br;q=0.5")
    ('br', 'gzip')
    >>> chosen_coding(None), chosen_coding("identity"), chosen_coding("br;q=0, gzip;q=0")
    (None, None, None)
    >>> chosen_coding("*"), chosen_coding("identity;q=1, gzip;q=0.5"), chosen_coding("*;q=0")
    ('br', None, None)
    """
    if not accept_encoding:
        return None
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        name, _, parameters = part.partition(";")
        name = name.strip().lower()
        if not name:
            continue
        weight = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                value = value.strip()
                weight = float(value) if _QVALUE.fullmatch(value) else 0.0
        weights.setdefault("gzip" if name == "x-gzip" else name, weight)
    anything = weights.get("*")
    best, best_weight = None, 0.0
    for coding in CODINGS:
        weight = weights.get(coding, anything if anything is not None else 0.0)
        if weight > best_weight:
            best, best_weight = coding, weight
    plain = weights.get("identity", anything if anything is not None else 0.0)
    return best if best is not None and best_weight >= plain else None


def not_modified(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weakly compared) or is ``*``."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    return any(tag.strip().removeprefix("W/") == etag for tag in if_none_match.split(","))


async def answer(
    request: Request[Any, Any, Any], file: PageFile, cache_control: str
) -> Response[bytes]:
    """A page file in the encoding the request accepts (with its ETag, ``Vary`` and
    ``cache_control``), or a 304 when the request already has it."""
    coding = chosen_coding(request.headers.get("accept-encoding")) if file.compressible else None
    body = file.body
    if coding is not None:
        compressed = await encoded(file, coding)
        if compressed is None:
            coding = None
        else:
            body = compressed
    etag = file.etag(coding)
    headers = {"cache-control": cache_control, "etag": etag}
    if file.compressible:
        headers["vary"] = "accept-encoding"
    if not_modified(request.headers.get("if-none-match"), etag):
        return Response(b"", status_code=304, headers=headers)
    if coding is not None:
        headers["content-encoding"] = coding
    return Response(body, media_type=file.media_type, headers=headers)


def _listing(directory: Path) -> list[tuple[str, int, int, int]]:
    """The directory's files, not hidden ones, under it at any depth: name (relative,
    with ``/``), size, modification time (ns) and inode (a file replaced by a rename),
    sorted by name."""
    found: list[tuple[str, int, int, int]] = []
    pending = [(directory, "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    pending.append((Path(entry.path), f"{prefix}{entry.name}/"))
                elif entry.is_file():
                    stat = entry.stat()
                    found.append((prefix + entry.name, stat.st_size, stat.st_mtime_ns, stat.st_ino))
    return sorted(found)


def _read(directory: Path, names: list[str]) -> dict[str, bytes]:
    """The files' bytes; a file gone (or unreadable) since it was listed is left out:
    the listing then differs from the directory's, and the next look reads it all again."""
    contents: dict[str, bytes] = {}
    for name in names:
        try:
            contents[name] = (directory / name).read_bytes()
        except OSError:
            continue
    return contents


def digest_of(contents: dict[str, bytes]) -> str:
    """The digest of files by name: each name and its bytes, length-prefixed, in name order."""
    digest = hashlib.sha256()
    for name in sorted(contents):
        encoded_name = name.encode()
        for part in (encoded_name, contents[name]):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()[:DIGEST_LENGTH]


def fingerprinted(index: str, digest: str, names: frozenset[str]) -> str:
    """``index.html`` with its references to the page's files (``src="/play/app.js"``)
    under the digest (``src="/play/<digest>/app.js"``); other references as they are.

    >>> index = '<link href="/play/style.css"><a href="/play/x.css">'
    >>> fingerprinted(index, "ab12", frozenset({"style.css"}))
    '<link href="/play/ab12/style.css"><a href="/play/x.css">'
    """

    def place(found: re.Match[str]) -> str:
        before, name, after = found.groups()
        if name not in names or name == "index.html":
            return found[0]
        return f"{before}/play/{digest}/{name}{after}"

    return _REFERENCE.sub(place, index)


# A module's static import of another of the page's modules, at the start of a line
# (``import { h } from './dom.js';``, over several lines too); a dynamic ``import('./x.js')``
# is not one: that module is fetched when it is asked for.
_STATIC_IMPORT: Final = re.compile(
    r"""^(?:import|export)\s[^;'"]*?\bfrom\s*['"]\./([\w.-]+\.js)['"]""", re.MULTILINE
)
# index.html's module script: where the page's modules start.
_ENTRY: Final = re.compile(
    r'<script\b[^>]*\btype="module"[^>]*\bsrc="/play/(?:[0-9a-f]+/)?([^"?#]+)"'
)


def statically_imported(entry: str, sources: dict[str, str]) -> list[str]:
    r"""The modules ``entry`` needs before it runs: those it imports statically, theirs in
    turn, and so on (sorted; ``entry`` itself not among them). A name not in ``sources``
    is left out.

    >>> statically_imported("app.js", {
    ...     "app.js": "import { a } from './a.js';\nconst late = () => import('./late.js');",
    ...     "a.js": "import {\n  b,\n} from './b.js';\nexport const a = b;",
    ...     "b.js": "export const b = 1;",
    ...     "late.js": "import { a } from './a.js';",
    ... })
    ['a.js', 'b.js']
    """
    seen = {entry}
    todo = [entry]
    while todo:
        for name in _STATIC_IMPORT.findall(sources.get(todo.pop(), "")):
            if name in sources and name not in seen:
                seen.add(name)
                todo.append(name)
    return sorted(seen - {entry})


def preloading(index: str, digest: str, sources: dict[str, str]) -> str:
    """``index.html`` (fingerprinted) naming every module its module script needs before
    it runs (``statically_imported``) in a ``modulepreload`` link, so that a first load
    asks for them side by side rather than one import after another. A module loaded
    later (a view's, by ``import()``) is not preloaded: it would take the first load's
    connections and bandwidth.

    >>> page = preloading('<head><script type="module" src="/play/ab/app.js"></script></head>',
    ...                   "ab", {"app.js": "import { h } from './ui.js';", "ui.js": "", "x.js": ""})
    >>> page.count("modulepreload"), '"/play/ab/ui.js"' in page, "x.js" in page
    (1, True, False)
    """
    entry = _ENTRY.search(index)
    needed = statically_imported(entry[1], sources) if entry else []
    links = "".join(
        f'<link rel="modulepreload" href="/play/{digest}/{name}">\n'
        for name in needed
        if f'"/play/{digest}/{name}"' not in index
    )
    return index.replace("</head>", links + "</head>", 1)


class PageFiles:
    """The page's files as read from ``directory``: ``digest``, and ``files`` by name
    (``index.html`` pointing at the others under the digest)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._load(_listing(directory))

    def _load(self, listing: list[tuple[str, int, int, int]]) -> None:
        contents = _read(self.directory, [name for name, *_ in listing])
        digest = digest_of(contents)
        files = {name: PageFile.of(body, media_type(name)) for name, body in contents.items()}
        index = contents.get("index.html")
        if index is not None:
            names = frozenset(files)
            text = fingerprinted(index.decode(errors="surrogateescape"), digest, names)
            sources = {
                name: body.decode(errors="replace")
                for name, body in contents.items()
                if name.endswith(".js")
            }
            text = preloading(text, digest, sources)
            body = text.encode(errors="surrogateescape")
            files["index.html"] = PageFile.of(body, media_type("index.html"))
        self.listing = listing
        self.digest = digest
        self.files = files

    def refresh(self) -> None:
        """Read the directory again if a file has changed, come or gone since it was read
        (a directory that cannot be listed leaves the files as they are)."""
        try:
            listing = _listing(self.directory)
        except OSError:
            return
        if listing != self.listing:
            self._load(listing)

    def get(self, name: str) -> PageFile | None:
        return self.files.get(name)
