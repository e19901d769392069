"""GET /play without a browser: the page and its files are served with the right
types and headers, fingerprinted (``/play/<digest>/...``, immutable) and compressed as
the client accepts, and nothing in them points at another host."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import brotli  # type: ignore[import-untyped]
import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.support.clock import FixedClock
from service.web import PAGE_HEADERS, PLAY_DIRECTORY, play_router
from service.web.files import PageFiles, chosen_coding
from tests.conftest import base_settings

# The only absolute URL the page may hold: the SVG namespace, a name, never fetched.
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
URL = re.compile(r"""(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s'"`)<>]*""")


@pytest.mark.parametrize("path", ["/play", "/play/", "/play/index.html"])
async def test_the_page_is_served(page_client: httpx.AsyncClient, path: str) -> None:
    answer = await page_client.get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    digest = PageFiles(PLAY_DIRECTORY).digest
    assert f'<script type="module" src="/play/{digest}/app.js">' in answer.text
    assert f'href="/play/{digest}/style.css"' in answer.text
    assert f'href="/play/{digest}/favicon.svg"' in answer.text
    policy = answer.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert answer.headers["cache-control"] == "no-cache"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["x-request-id"]  # through the app's middleware like any request


async def test_the_assets_have_their_types(page_client: httpx.AsyncClient) -> None:
    script = await page_client.get("/play/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].split(";")[0] in {
        "text/javascript",
        "application/javascript",
    }
    assert "import" in script.text
    style = await page_client.get("/play/style.css")
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    icon = await page_client.get("/play/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    missing = await page_client.get("/play/no-such-file.js")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("fingerprinted", [True, False])
async def test_every_module_the_page_imports_is_served(
    page_client: httpx.AsyncClient, fingerprinted: bool
) -> None:
    """From the app.js the page names (under its digest), or from /play/app.js: every
    import, relative (static, or a view's ``import('./x.js')``), stays under the same
    prefix, and every module is reached."""
    index = (await page_client.get("/play")).text
    prefix = re.search(r'<script type="module" src="(/play/[0-9a-f]{16}/)app\.js">', index)
    assert prefix is not None, index
    base = prefix[1] if fingerprinted else "/play/"
    seen: set[str] = set()
    todo = ["app.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        answer = await page_client.get(base + name)
        assert answer.status_code == 200, name
        immutable = "immutable" in answer.headers["cache-control"]
        assert immutable == fingerprinted, (name, answer.headers["cache-control"])
        todo += re.findall(r"""(?:from |import\()'\./([\w-]+\.js)'""", answer.text)
    assert seen == {p.name for p in PLAY_DIRECTORY.glob("*.js")}


async def test_the_page_points_at_no_other_host(page_client: httpx.AsyncClient) -> None:
    files = sorted(p.name for p in PLAY_DIRECTORY.iterdir() if p.is_file())
    assert {"index.html", "app.js", "strings.js", "style.css"} <= set(files)
    for name in files:
        answer = await page_client.get(f"/play/{name}")
        assert answer.status_code == 200, name
        urls = [u for u in URL.findall(answer.text) if u != SVG_NAMESPACE]
        assert urls == [], f"{name} refers to another host: {urls}"
        assert "@import" not in answer.text, name
    index = (await page_client.get("/play")).text
    for reference in re.findall(r"""(?:src|href)="([^"]+)\"""", index):
        assert reference.startswith("/play/"), reference


async def test_the_api_document_leaves_the_page_out(page_client: httpx.AsyncClient) -> None:
    document = (await page_client.get("/schema/openapi.json")).json()
    assert not [path for path in document["paths"] if path.startswith("/play")]


# --- fingerprinted, compressed, revalidated ---------------------------------------------

IMMUTABLE = "public, max-age=31536000, immutable"
PAGE_FILES = sorted(p.name for p in PLAY_DIRECTORY.iterdir() if p.is_file())
TEXT_FILES = [name for name in PAGE_FILES if name.endswith((".js", ".css", ".html", ".svg"))]


async def fetched(
    client: httpx.AsyncClient, path: str, accept_encoding: str | None, **headers: str
) -> tuple[httpx.Response, bytes]:
    """An answer and its body as it came (not decoded); no Accept-Encoding at all when
    ``accept_encoding`` is None (httpx sends one of its own otherwise)."""
    request = client.build_request("GET", path, headers=headers)
    del request.headers["accept-encoding"]
    if accept_encoding is not None:
        request.headers["accept-encoding"] = accept_encoding
    answer = await client.send(request, stream=True)
    try:
        body = b"".join([chunk async for chunk in answer.aiter_raw()])
    finally:
        await answer.aclose()
    return answer, body


async def current_digest(client: httpx.AsyncClient) -> str:
    found = re.search(r'src="/play/([0-9a-f]{16})/app\.js"', (await client.get("/play")).text)
    assert found is not None
    return found[1]


def assert_page_headers(answer: httpx.Response, what: str) -> None:
    for name, value in PAGE_HEADERS:
        assert answer.headers.get(name.decode()) == value.decode(), (what, name)


async def test_the_page_names_the_digest_of_its_files(page_client: httpx.AsyncClient) -> None:
    digest = await current_digest(page_client)
    assert digest == PageFiles(PLAY_DIRECTORY).digest
    index = (await page_client.get("/play")).text
    for reference in re.findall(r"""(?:src|href)="([^"]+)\"""", index):
        assert reference.startswith(f"/play/{digest}/"), reference


# The modules of the views other than the Daily Dice, imported when their tab is opened,
# and the result's, imported when a round ends.
LATER_MODULES = {
    "account.js",
    "box.js",
    "friends.js",
    "result.js",
    "series.js",
    "solo.js",
    "stats.js",
}


async def test_the_page_asks_for_the_daily_dice_modules_at_once(
    page_client: httpx.AsyncClient,
) -> None:
    digest = await current_digest(page_client)
    index = (await page_client.get("/play")).text
    preloaded = set(re.findall(rf'<link rel="modulepreload" href="/play/{digest}/([^"]+)">', index))
    modules = {path.name for path in PLAY_DIRECTORY.glob("*.js")}
    # app.js is the page's own script; the other views' modules would take the first
    # load's bandwidth (app.js imports them when their tab is opened).
    assert preloaded == modules - {"app.js"} - LATER_MODULES
    app = (PLAY_DIRECTORY / "app.js").read_text()
    for name in LATER_MODULES & modules:
        assert f"from './{name}'" not in app, name
    assert f'<script type="module" src="/play/{digest}/app.js">' in index


async def test_a_fingerprinted_file_is_immutable(page_client: httpx.AsyncClient) -> None:
    digest = await current_digest(page_client)
    for name in PAGE_FILES:
        answer, body = await fetched(page_client, f"/play/{digest}/{name}", "identity")
        assert answer.status_code == 200, name
        assert answer.headers["cache-control"] == IMMUTABLE, name
        assert "content-encoding" not in answer.headers, name
        assert int(answer.headers["content-length"]) == len(body), name
        on_disk = (PLAY_DIRECTORY / name).read_bytes()
        if name == "index.html":  # its references under the digest, the modules preloaded
            without_preloads = re.sub(rb'<link rel="modulepreload" href="[^"]+">\n', b"", body)
            assert without_preloads == on_disk.replace(b'"/play/', f'"/play/{digest}/'.encode())
        else:
            assert body == on_disk, name
        assert_page_headers(answer, name)
        plain, _ = await fetched(page_client, f"/play/{name}", "identity")
        assert plain.headers["cache-control"] == "no-cache", name  # its own path: revalidated
        assert plain.headers["etag"] == answer.headers["etag"], name


@pytest.mark.parametrize("fingerprinted", [True, False])
async def test_the_text_files_come_compressed_as_accepted(
    page_client: httpx.AsyncClient, fingerprinted: bool
) -> None:
    prefix = f"/play/{await current_digest(page_client)}/" if fingerprinted else "/play/"
    for name in TEXT_FILES:
        plain, expected = await fetched(page_client, prefix + name, None)
        assert "content-encoding" not in plain.headers, name
        etags = {plain.headers["etag"]}
        for coding, decompress in (("gzip", gzip.decompress), ("br", brotli.decompress)):
            answer, body = await fetched(page_client, prefix + name, f"{coding}, identity;q=0.5")
            assert answer.status_code == 200, name
            assert answer.headers["content-encoding"] == coding, name
            assert answer.headers["vary"] == "accept-encoding", name
            assert int(answer.headers["content-length"]) == len(body) < len(expected), name
            assert decompress(body) == expected, name
            assert answer.headers["content-type"] == plain.headers["content-type"], name
            assert answer.headers["cache-control"] == plain.headers["cache-control"], name
            assert_page_headers(answer, f"{name} in {coding}")
            etags.add(answer.headers["etag"])
        assert len(etags) == 3, name  # each encoding its own ETag
        # What Chromium sends: brotli, the smallest.
        chromium, _ = await fetched(page_client, prefix + name, "gzip, deflate, br, zstd")
        assert chromium.headers["content-encoding"] == "br", name


@pytest.mark.parametrize(
    ("accept_encoding", "coding"),
    [
        (None, None),
        ("", None),
        ("identity", None),
        ("deflate, zstd", None),
        ("br;q=0, gzip;q=0", None),
        ("*;q=0", None),
        ("identity;q=1, gzip;q=0.5", None),
        ("gzip;q=2", None),  # no q-value: not acceptable
        ("gzip", "gzip"),
        ("x-gzip", "gzip"),
        ("GZIP;Q=0.5", "gzip"),
        ("br;q=0.8, gzip;q=0.9", "gzip"),
        ("br;q=0, *", "gzip"),
        ("gzip, br", "br"),
        ("*", "br"),
        ("gzip;q=0.5, br;q=0.5, identity;q=0.5", "br"),
    ],
)
async def test_accept_encoding_and_its_q_values_choose(
    page_client: httpx.AsyncClient, accept_encoding: str | None, coding: str | None
) -> None:
    assert chosen_coding(accept_encoding) == coding
    expected = (PLAY_DIRECTORY / "style.css").read_bytes()
    answer, body = await fetched(page_client, "/play/style.css", accept_encoding)
    assert answer.status_code == 200
    assert answer.headers.get("content-encoding") == coding
    assert answer.headers["vary"] == "accept-encoding"
    assert int(answer.headers["content-length"]) == len(body)
    decompress = {None: bytes, "gzip": gzip.decompress, "br": brotli.decompress}[coding]
    assert decompress(body) == expected


@pytest.mark.parametrize("coding", [None, "gzip", "br"])
async def test_a_file_at_its_own_path_is_revalidated_by_its_etag(
    page_client: httpx.AsyncClient, coding: str | None
) -> None:
    for path in ("/play", "/play/app.js", "/play/messages/de.json"):
        first, _ = await fetched(page_client, path, coding)
        assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
        etag = first.headers["etag"]
        again, body = await fetched(page_client, path, coding, **{"if-none-match": etag})
        assert (again.status_code, body) == (304, b""), path
        assert again.headers["etag"] == etag
        assert_page_headers(again, f"304 of {path}")
        other, _ = await fetched(page_client, path, coding, **{"if-none-match": '"other"'})
        assert other.status_code == 200


async def test_the_messages_come_compressed(page_client: httpx.AsyncClient) -> None:
    plain, expected = await fetched(page_client, "/play/messages/de.json", None)
    answer, body = await fetched(page_client, "/play/messages/de.json", "br")
    assert answer.headers["content-encoding"] == "br"
    assert brotli.decompress(body) == expected and len(body) < len(expected)
    assert plain.headers["etag"] != answer.headers["etag"]


async def test_a_wrong_digest_or_a_junk_path_is_a_404(page_client: httpx.AsyncClient) -> None:
    digest = await current_digest(page_client)
    other = ("0" if digest[0] != "0" else "1") + digest[1:]
    paths = [
        f"/play/{other}/app.js",  # an old digest: its files are gone
        f"/play/{other}/",
        f"/play/{digest.upper()}/app.js",
        f"/play/{digest}/no-such-file.js",
        f"/play/{digest}/messages/de.json",  # the messages are not fingerprinted
        f"/play/{digest}/app.js/index.html",
        f"/play/{digest}/app.js%00",
        f"/play/{digest}/%00",
        f"/play/{digest}/" + "x" * 300,
        f"/play/{digest}/%ED%A0%80",
        f"/play/{digest}/%ff%fe",
        f"/play/{digest}/{digest}/app.js",
        f"/play/{digest[:-1]}/app.js",
        "/play/no-such-file.js",
        "/play/%00",
    ]
    for path in paths:
        for method in ("GET", "HEAD"):
            answer = await page_client.request(method, path)
            assert answer.status_code == 404, (method, path, answer.status_code)
            assert_page_headers(answer, f"{method} {path}")
        assert (await page_client.get(path)).headers["content-type"] == "application/problem+json"
    stale = await page_client.get(f"/play/{other}/app.js")
    assert "load /play again" in stale.json()["detail"]


async def test_a_head_gives_the_headers_of_the_get(page_client: httpx.AsyncClient) -> None:
    digest = await current_digest(page_client)
    for path in ("/play", f"/play/{digest}/app.js", "/play/style.css"):
        get, _ = await fetched(page_client, path, "gzip")
        request = page_client.build_request("HEAD", path, headers={"accept-encoding": "gzip"})
        head = await page_client.send(request)
        assert head.status_code == 200 and head.content == b""
        for name in ("content-length", "content-encoding", "etag", "cache-control", "vary"):
            assert head.headers[name] == get.headers[name], (path, name)


# --- the digest and the files read again: on a directory of the test's own -------------


def write(directory: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)


def test_a_change_of_any_file_changes_the_digest(tmp_path: Path) -> None:
    write(tmp_path, {"index.html": '<script src="/play/app.js">', "app.js": "one", "a/b.css": "x"})
    first = PageFiles(tmp_path).digest
    assert re.fullmatch(r"[0-9a-f]{16}", first)
    write(tmp_path, {"app.js": "one"})  # written again, the same bytes: the same digest
    assert PageFiles(tmp_path).digest == first
    write(tmp_path, {".app.js.swp": "an editor's"})  # hidden files are not the page's
    assert PageFiles(tmp_path).digest == first
    seen = {first}
    for change in ({"app.js": "two"}, {"a/b.css": "y"}, {"new.js": ""}, {"index.html": "<p>"}):
        write(tmp_path, change)
        seen.add(PageFiles(tmp_path).digest)
    (tmp_path / "new.js").rename(tmp_path / "renamed.js")
    seen.add(PageFiles(tmp_path).digest)
    assert len(seen) == 6  # every change a digest of its own
    # A name's bytes and the next name's cannot trade places: "ab" + "c" is not "a" + "bc".
    write(tmp_path / "x", {"a": "bc"})
    write(tmp_path / "y", {"ab": "c"})
    assert PageFiles(tmp_path / "x").digest != PageFiles(tmp_path / "y").digest


def test_the_files_are_read_again_when_one_changes(tmp_path: Path) -> None:
    write(tmp_path, {"index.html": '<script src="/play/app.js"></script>', "app.js": "one"})
    files = PageFiles(tmp_path)
    old = files.digest
    assert body_of(files, "index.html") == f'<script src="/play/{old}/app.js"></script>'.encode()
    files.refresh()
    assert files.digest == old  # nothing changed
    write(tmp_path, {"app.js": "two, longer"})
    assert body_of(files, "app.js") == b"one"  # the copy read, until looked at again
    files.refresh()
    assert files.digest == PageFiles(tmp_path).digest != old
    assert body_of(files, "app.js") == b"two, longer"
    assert f"/play/{files.digest}/app.js".encode() in body_of(files, "index.html")
    (tmp_path / "app.js").unlink()
    files.refresh()
    assert files.get("app.js") is None and files.digest == PageFiles(tmp_path).digest


def body_of(files: PageFiles, name: str) -> bytes:
    file = files.get(name)
    assert file is not None, name
    return file.body


async def test_a_server_follows_its_files_and_refuses_the_old_digest(tmp_path: Path) -> None:
    """The router on a directory of its own: an edit shows at the next load of /play,
    under a new digest; the old digest's files are gone (404), the new one's served. (Each
    edit here changes the file's size: two writes within one tick of the file system's
    clock may leave the same modification time, and a test is quicker than an editor.)"""
    write(tmp_path, {"index.html": '<script type="module" src="/play/app.js"></script>'})
    write(tmp_path, {"app.js": "import './ui.js';", "ui.js": "export const one = 1;"})
    async with AsyncTestClient(Litestar([play_router(tmp_path)])) as client:
        old = await current_digest(client)
        assert (await client.get(f"/play/{old}/ui.js")).text == "export const one = 1;"
        write(tmp_path, {"ui.js": "export const two = 22;"})  # (another size: see below)
        # Until the files are looked at again, the old digest's are served as read.
        assert (await client.get(f"/play/{old}/ui.js")).text == "export const one = 1;"
        new = await current_digest(client)  # /play looks
        assert new != old
        assert (await client.get(f"/play/{old}/ui.js")).status_code == 404
        answer = await client.get(f"/play/{new}/ui.js")
        assert answer.text == "export const two = 22;"
        assert answer.headers["cache-control"] == IMMUTABLE
        assert (await client.get("/play/ui.js")).text == "export const two = 22;"
    async with AsyncTestClient(Litestar([play_router(tmp_path)])) as worker:
        write(tmp_path, {"ui.js": "export const three = 3;"})
        # Another worker saw the change first: this one, asked for a digest it does not
        # know, looks at its files again and serves it.
        newest = PageFiles(tmp_path).digest
        assert (await worker.get(f"/play/{newest}/ui.js")).text == "export const three = 3;"


async def test_an_allowed_origin_keeps_the_vary_of_an_encoding(
    database_url: str, redis_prefix: str, clock: FixedClock
) -> None:
    """The CORS layer sets ``Vary: Origin`` in place of the answer's: a compressed file
    asked for from an allowed origin still says it varies by Accept-Encoding (a shared
    cache would give its brotli to a client that takes none)."""
    from service.app import create_app

    allowed = "https://a.example"
    settings = base_settings(database_url, redis_prefix, cors_origins=[allowed])
    async with AsyncTestClient(create_app(settings, clock)) as client:
        for origin in ({"origin": allowed}, {}, {"origin": "https://evil.example"}):
            answer, _ = await fetched(client, "/play/app.js", "br", **origin)
            assert answer.headers["content-encoding"] == "br"
            varies = {v.strip().lower() for v in answer.headers["vary"].split(",")}
            assert "accept-encoding" in varies, origin
            if origin.get("origin") == allowed:
                assert "origin" in varies
        api = await client.get("/v1/rules", headers={"origin": allowed, "accept-encoding": "br"})
        assert "content-encoding" not in api.headers  # the API's answers as they were
