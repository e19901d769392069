"""Hostile bodies, paths and parameters: every one is a 4xx problem, never a 500 or a 2xx.

Every operation that takes a body gets the whole corpus (deep nesting, huge numbers,
NaN, wrong JSON types, duplicate names, broken UTF-8, a BOM, no body, not JSON), built
from a valid example of its body; every operation with parameters gets hostile path
segments and query values. The operations are read from the app itself, so a new one
is attacked too (and one with a body needs an example below). Then static paths the file
system refuses (404), junk methods, NUL bytes in headers, and a header that must come
once given twice (400, whichever way the request takes).
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, Final

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import transport

from service.api.bodies import request_body_types
from service.support.settings import Settings
from tests.integration.api.helpers import auth, new_player

pytestmark = pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)

DICE: Final = [[3, 4], [6, 6], [1, 1], [1, 2], [2, 3], [5, 5], [6, 6], [1, 1], [2, 2], [3, 3]]
RULES: Final = {"tiles": 9, "one_die": "never", "start": [4, 5, 6]}
MOVES: Final = [[7], {"dice": 2, "tiles": [9, 3]}]

# A valid body of each request struct, by its name: the corpus is built from these.
EXAMPLES: Final[dict[str, dict[str, Any]]] = {
    "AnalyzeRequest": {"rules": RULES, "dice": DICE, "moves": MOVES},
    "HintRequest": {"rules": RULES, "open": [4, 5, 6], "roll": [3, 4]},
    "MovesRequest": {"rules": RULES, "open": [4, 5, 6], "roll": [3, 4], "dice": 2},
    "NewPlayer": {"name": "Ada", "time_zone": "Europe/Paris"},
    "PlayerChange": {"name": "Ada", "time_zone": "Europe/Paris"},
    "Claim": {"code": "7M3Q-K2ZD-PX4T9"},
    "RunSubmission": {"moves": MOVES},
    "NewBox": {"rules": RULES},
    "NewDeal": {"rules": RULES},
    "BoxRunSubmission": {"moves": MOVES, "mode": "blind"},
    "NewSeries": {
        "rules": RULES,
        "format": {"kind": "elimination", "limit": 45, "out_when": "exceeded"},
        "shut_wins": True,
        "computers": ["easy", "hard"],
    },
    "SeriesRunSubmission": {"moves": MOVES},
    "Redeem": {"code": "7M3Q-K2ZD2"},
}
PATH_VALUES: Final = {"day": "2026-11-28", "code": "7M3Q-K2ZD2", "round": "1"}
SENTINEL: Final = "\x00hostile\x00"


# --- building the corpus -----------------------------------------------------------


def leaves(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def replaced(example: dict[str, Any], path: tuple[str | int, ...], new: Any) -> dict[str, Any]:
    changed = copy.deepcopy(example)
    target: Any = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = new
    return changed


def with_raw(example: dict[str, Any], path: tuple[str | int, ...], raw: bytes) -> bytes:
    """The example as JSON with the value at ``path`` written as ``raw`` bytes."""
    text = json.dumps(replaced(example, path, SENTINEL)).encode()
    return text.replace(json.dumps(SENTINEL).encode(), raw)


def first(example: dict[str, Any], kind: type) -> tuple[str | int, ...]:
    """The path of the first leaf of a kind (ints: not bools), or of the first field."""
    for path, leaf in leaves(example):
        if isinstance(leaf, kind) and not (kind is int and isinstance(leaf, bool)):
            return path
    return (next(iter(example)),)


def nested(depth: int, *, objects: bool) -> bytes:
    if objects:
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b"[" * depth + b"]" * depth


def wrong_types(example: dict[str, Any], body_type: type) -> Iterator[tuple[str, bytes]]:
    """A tile sent as "7", 7.0 or true, a string sent as a number, null for a required
    field: once per place in the body's shape."""
    seen = set()
    for path, leaf in leaves(example):
        shape = tuple("*" if isinstance(step, int) else step for step in path)
        if shape in seen:
            continue
        seen.add(shape)
        where = ".".join(map(str, shape))
        if isinstance(leaf, bool):
            subs: list[Any] = [1, "true"]
        elif isinstance(leaf, int):
            subs = [str(leaf), float(leaf), True, [leaf], {"value": leaf}]
        else:
            subs = [7, True, [leaf]]
        for sub in subs:
            yield f"{where} as {sub!r}", json.dumps(replaced(example, path, sub)).encode()
    for field in msgspec.structs.fields(body_type):
        if field.required:
            yield (
                f"{field.encode_name} null",
                json.dumps({**example, field.encode_name: None}).encode(),
            )


def hostile_json(example: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
    """(what, body) of bodies no operation accepts, sent as application/json."""
    number, text, field = first(example, int), first(example, str), next(iter(example))
    for depth in (1_000, 8_000):
        for objects in (False, True):
            shape = "objects" if objects else "arrays"
            yield f"{shape} {depth} deep", nested(depth, objects=objects)
            inside = with_raw(example, (field,), nested(depth, objects=objects))
            yield f"{shape} {depth} deep in {field}", inside
    for objects in (False, True):
        yield f"100,000 deep {objects=}", nested(100_000, objects=objects)
    for raw in (b"1e400", b"-1e400", b"9" * 400, b"-" + b"9" * 5000, b"1" + b"0" * 20, b"1e-400"):
        yield f"huge number {raw[:12]!r}", with_raw(example, number, raw)
    for raw in (b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf"):
        yield f"{raw!r} literal", with_raw(example, number, raw)
    value = json.dumps(example[field]).encode()
    yield "duplicate name", b'{"%s": %s, "%s": %s}' % (field.encode(), value, field.encode(), value)
    escaped = f"\\u{ord(field[0]):04x}{field[1:]}"
    yield (
        "duplicate escaped name",
        b'{"%s": %s, "%s": %s}' % (field.encode(), value, escaped.encode(), value),
    )
    for raw in (b'"\xff\xfe"', b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"a\x00b"'):
        yield f"bad string {raw!r}", with_raw(example, text, raw)
    for raw in (b'"\\ud800"', b'"\\udfff"', b'"x\\ud800y"', b'"\\udc00\\ud800"'):
        yield f"lone surrogate {raw!r}", with_raw(example, text, raw)
    valid = json.dumps(example).encode()
    yield "a BOM", b"\xef\xbb\xbf" + valid
    yield "UTF-16", valid.decode().encode("utf-16")
    yield "empty body", b""
    yield "whitespace only", b" \r\n\t "
    yield "trailing garbage", valid + b"x"
    yield "two documents", valid + valid
    yield "truncated", valid[:-1]
    for other in (b"null", b"[]", b'""', b"0", b"true", b"[" + valid + b"]"):
        yield f"body {other[:20]!r}", other


# --- checking answers -----------------------------------------------------------------


def problem_of(
    response: httpx.Response, status: int | None = None, kind: str | None = None
) -> str | None:
    """Why the answer is not a 4xx problem details with a /problems/ type (of this
    ``status`` and type ``kind``, where given); None if it is."""
    if status is not None and response.status_code != status:
        return f"status {response.status_code}, not {status}: {response.text[:200]}"
    if not 400 <= response.status_code < 500:
        return f"status {response.status_code}: {response.text[:200]}"
    if response.headers.get("content-type") != "application/problem+json":
        return f"content-type {response.headers.get('content-type')}"
    body = response.json()
    if not str(body.get("type", "")).startswith("/problems/"):
        return f"type {body.get('type')!r}"
    if (
        body.get("status") != response.status_code
        or not body.get("title")
        or not body.get("detail")
    ):
        return f"incomplete problem {body}"
    if kind is not None and body["type"] != f"/problems/{kind}":
        return f"type {body['type']}, not {kind}"
    return None


def operations(app: Litestar) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(method, path template, OpenAPI operation) of every operation of the app."""
    for path, item in (app.openapi_schema.paths or {}).items():
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(item, method)
            if operation is not None:
                yield method.upper(), path, operation.to_schema()


def body_operations(app: Litestar) -> list[tuple[str, str, str]]:
    """(method, path, body struct name) of every operation that takes a body."""
    found = []
    for method, path, operation in operations(app):
        body = operation.get("requestBody")
        if body is not None:
            ref = body["content"]["application/json"]["schema"]["$ref"]
            found.append((method, path, ref.rpartition("/")[2]))
    return found


def filled(path: str, **values: str) -> str:
    for name, value in {**PATH_VALUES, **values}.items():
        path = path.replace("{" + name + "}", value)
    return path


# --- the tests ------------------------------------------------------------------------

HOSTILE_SEGMENTS: Final = [
    "9" * 5_000,
    "2026-11-29" + "0" * 5_000,
    "x" * 20_000,
    "%F0%9F%8E%B2" * 2_000,  # dice emoji
    "%00",
    "%ff%fe",
    "%C0%AF",
    "%ED%A0%80",  # a surrogate, UTF-8 encoded
    "%E2%80%AE2026-11-29",  # right-to-left override
    "%252e%252e",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "2026-11-29%00",
    "%20",
    "%uD800",
    "2026-11-29;x=1",
]
HOSTILE_QUERY_VALUES: Final = [
    "x" * 20_000,
    "%00",
    "%ff",
    "%ED%A0%80",
    "1e400",
    "9" * 400,
    "-1",
    "NaN",
    "Infinity",
    "0x10",
    "%5B%5D",
    "1%2C2%2C99",
]


Request = tuple[str, str, str, bytes, int | None]
"""What it is, the method, URL and JSON body sent, and the status due (None: any 4xx)."""


def hostile_bodies(app: Litestar, max_body_bytes: int) -> Iterator[Request]:
    types = {body_type.__name__: body_type for body_type in request_body_types(app)}
    missing = set(types) - set(EXAMPLES)
    assert not missing, f"add an example body of {sorted(missing)}"
    for method, template, name in body_operations(app):
        example = EXAMPLES[name]
        for what, body in [*wrong_types(example, types[name]), *hostile_json(example)]:
            status = 413 if len(body) > max_body_bytes else 400
            yield f"{method} {template} with {what}", method, filled(template), body, status


def hostile_parameters(app: Litestar) -> Iterator[Request]:
    """Each parameter of each operation in turn, hostile; the rest valid (a valid body)."""
    bodies = {(method, path): name for method, path, name in body_operations(app)}
    for method, template, operation in operations(app):
        body = b""
        if (method, template) in bodies:
            body = json.dumps(EXAMPLES[bodies[(method, template)]]).encode()
        for parameter in operation.get("parameters", []):
            name, where = parameter["name"], parameter["in"]
            if where == "header":  # optional headers: any value is a fine one, or its own 400
                continue
            for value in HOSTILE_SEGMENTS if where == "path" else HOSTILE_QUERY_VALUES:
                if where == "path":
                    url = filled(template, **{name: value})
                else:
                    url = f"{filled(template)}?{name}={value}"
                what = f"{method} {template} with {name}={value[:40]!r}"
                yield what, method, url, body, None


async def test_hostile_requests_are_4xx_problems(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    app: Litestar = client.app  # type: ignore[attr-defined]
    token = auth(await new_player(client, name="Mallory"))
    corpus = [*hostile_bodies(app, settings.max_body_bytes), *hostile_parameters(app)]
    assert len(corpus) > 500
    failures = []
    for what, method, url, body, status in corpus:
        headers = {**token, "content-type": "application/json"}
        response = await client.request(method, url, content=body, headers=headers)
        wrong = problem_of(response, status)
        if wrong is not None:
            failures.append(f"{what}: {wrong}")
    assert not failures, "\n".join(failures)


async def test_a_body_that_is_not_json_is_415(client: httpx.AsyncClient) -> None:
    app: Litestar = client.app  # type: ignore[attr-defined]
    token = auth(await new_player(client, name="Mallory"))
    failures = []
    for method, template, name in body_operations(app):
        valid = json.dumps(EXAMPLES[name]).encode()
        for content_type in (
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/xml",
            "application/jsonx",
        ):
            headers = {**token, "content-type": content_type}
            response = await client.request(
                method, filled(template), content=valid, headers=headers
            )
            wrong = problem_of(response, 415, "unsupported-media-type")
            if wrong is not None:
                failures.append(f"{method} {template} as {content_type}: {wrong}")
    assert not failures, "\n".join(failures)


async def test_json_types_are_strict_in_an_official_run(client: httpx.AsyncClient) -> None:
    player = await new_player(client, name="Strict")
    for tile in ('"6"', "6.0", "true", '"0x6"'):
        response = await client.post(
            "/v1/daily/2026-11-29/runs",
            content=b'{"moves": [[%s]]}' % tile.encode(),
            headers={**auth(player), "content-type": "application/json"},
        )
        assert response.status_code == 400, response.text
        problem = response.json()
        assert problem["type"] == "/problems/invalid-request"
        assert "moves[0][0]" in problem["detail"]
    mine = await client.get("/v1/daily/2026-11-29/runs/me", headers=auth(player))
    assert mine.status_code == 404  # nothing was stored


# --- paths the file system refuses, junk methods, NUL bytes, repeated headers ----------

STATIC_PATHS_REFUSED: Final = [
    "/play/app.js%00",
    "/play/%00",
    "/play/%00/index.html",
    "/play/app.js%00.png",
    "/play/" + "x" * 300,  # a name longer than the file system takes
    "/play/app.js/index.html",  # a file taken for a directory
    "/play/%ED%A0%80",  # a surrogate, UTF-8 encoded: no file name encodes it
    "/play/%ff%fe",
]
# httpx sends a method in capitals: ``benchmarks/hostile.py`` sends ``get`` to a server.
JUNK_METHODS: Final = ["FOO", "BREW", "PROPFIND", "TRACE", "CONNECT", "M-SEARCH", "X" * 200]


async def test_a_static_path_the_file_system_refuses_is_a_404(client: httpx.AsyncClient) -> None:
    """A NUL byte, a name too long, a file taken for a directory: no file, as any other
    path with no file (the file system's refusal is not a 500)."""
    failures = []
    for path in STATIC_PATHS_REFUSED:
        got = await client.get(path)
        wrong = problem_of(got, 404)
        head = await client.head(path)
        if wrong is None and (head.status_code, head.content) != (404, b""):
            wrong = f"HEAD: status {head.status_code}"
        if wrong is not None:
            failures.append(f"{path[:40]}: {wrong}")
    assert not failures, "\n".join(failures)
    assert (await client.get("/play/app.js")).status_code == 200  # the files are there


async def test_junk_methods_are_4xx_problems(client: httpx.AsyncClient) -> None:
    app: Litestar = client.app  # type: ignore[attr-defined]
    failures = []
    for path in sorted({filled(template) for _method, template, _operation in operations(app)}):
        for method in JUNK_METHODS:
            wrong = problem_of(await client.request(method, path, content=b"{}"))
            if wrong is not None:
                failures.append(f"{method[:10]} {path}: {wrong}")
    assert not failures, "\n".join(failures)


class AsSent(transport.TestClientTransport[Any], httpx.AsyncBaseTransport):
    """The test client's transport (the app in its thread, its lifespan running), handing
    the app the headers as sent: the test client's own joins a repeated one."""

    def parse_request(self, request: httpx.Request) -> dict[str, Any]:
        sent = [(name.lower(), value) for name, value in request.headers.raw]
        scope = super().parse_request(request)
        scope["headers"] = [scope["headers"][0], *(h for h in sent if h[0] != b"host")]
        return scope

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()  # a streamed body too: the app is handed it in one piece
        return self.handle_request(request)


def as_sent(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """A client of the app ``client`` runs that sends the headers as they are given."""
    return httpx.AsyncClient(transport=AsSent(client), base_url="http://testserver.local")


async def streamed(body: bytes) -> AsyncIterator[bytes]:
    """A body in two chunks, of no stated length: it takes the framework's way."""
    yield body[:5]
    yield body[5:]


async def test_a_repeated_header_is_refused_whichever_way_the_request_takes(
    client: httpx.AsyncClient,
) -> None:
    """Content-Type, Content-Length or Authorization given twice: 400 before anything
    reads either, with its body stated (before the framework, on the hot routes) or
    streamed (the framework's way), on every operation. (On a real server, with a run
    that would be stored: ``tests/system/test_connections.py``.)"""
    app: Litestar = client.app  # type: ignore[attr-defined]
    token = auth(await new_player(client, name="Mallory"))["Authorization"]
    json_type = ("content-type", "application/json")
    failures = []
    async with as_sent(client) as raw:
        for method, template, name in body_operations(app):
            body = json.dumps(EXAMPLES[name]).encode()
            length = ("content-length", str(len(body)))
            repeats: dict[str, list[tuple[str, str]]] = {
                "text then JSON": [("content-type", "text/plain"), json_type],
                "JSON then text": [json_type, ("content-type", "text/plain")],
                "JSON twice": [json_type, json_type],
                "two tokens": [json_type, ("authorization", token), ("authorization", "Bearer x")],
                "one token twice": [json_type, ("authorization", token), ("authorization", token)],
                "length twice": [json_type, length, length],
            }
            for what, headers in repeats.items():
                if not any(k == "authorization" for k, _v in headers):
                    headers = [*headers, ("authorization", token)]
                headers = [*headers, ("accept-language", "de")]
                for way, content in (("stated", body), ("streamed", streamed(body))):
                    if way == "streamed" and what == "length twice":
                        continue
                    got = await raw.request(
                        method, filled(template), content=content, headers=headers
                    )
                    wrong = problem_of(got, 400, "invalid-request")
                    if wrong is None and got.headers.get("content-language") != "de":
                        wrong = f"in {got.headers.get('content-language')}: {got.text[:200]}"
                    if wrong is not None:
                        failures.append(f"{method} {template}, {what}, {way}: {wrong}")
        for method, template, _operation in operations(app):  # a GET's token, too
            headers = [("authorization", token), ("authorization", token)]
            got = await raw.request(method, filled(template), headers=headers)
            if got.status_code != 400:
                failures.append(f"{method} {template}, two tokens: status {got.status_code}")
    assert not failures, "\n".join(failures)


async def test_nul_bytes_in_headers_are_never_a_server_error(client: httpx.AsyncClient) -> None:
    app: Litestar = client.app  # type: ignore[attr-defined]
    bodies = {(method, path): name for method, path, name in body_operations(app)}
    failures = []
    async with as_sent(client) as raw:
        for method, template, _operation in operations(app):
            name = bodies.get((method, template))
            body = json.dumps(EXAMPLES[name]).encode() if name else b""
            for header in ("authorization", "idempotency-key", "accept-language", "x-request-id"):
                for value in ("\x00", "Bearer a\x00b", "%00"):
                    headers = [("content-type", "application/json"), (header, value)]
                    got = await raw.request(method, filled(template), content=body, headers=headers)
                    if got.status_code >= 500 or (got.status_code >= 400 and problem_of(got)):
                        failures.append(f"{method} {template}, {header}={value!r}: {got.text}")
    assert not failures, "\n".join(failures)
