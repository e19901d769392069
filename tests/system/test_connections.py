"""Connections that misbehave, against a real server process (``shutbox serve``, two
workers): one that never finishes its request headers is closed, one whose body trickles
in is a 408 and closed, a client that hangs up mid-body is counted and logged as a 499,
not as a server error, a request that repeats a header is refused whichever way it
takes, and an answer given before its request's body arrived says the connection
closes."""

from __future__ import annotations

import json
import re
import socket
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from service.rules.dice import derive_dice
from service.rules.ruleset import Rules
from service.support.settings import Settings, SettingsError
from tests.conftest import ServerProcess
from tests.integration.api.helpers import auth
from tests.runs import legal_run

PARTIAL_BODY = (
    b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\nContent-Type: application/json\r\n"
    b'Content-Length: 1000\r\n\r\n{"dice": [[3, 4],'
)


def closed_within(connection: socket.socket, seconds: float) -> bool:
    """Whether the server closes the connection within ``seconds`` (whatever it sends
    before closing, a 408 say, is read and let go)."""
    connection.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not connection.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


def test_a_connection_that_never_sends_its_headers_is_closed(server_env: dict[str, str]) -> None:
    server = ServerProcess({**server_env, "SHUTBOX_HEADER_TIMEOUT": "1"}, workers=2).start()
    try:
        silent = socket.create_connection(("127.0.0.1", server.port))
        partial = socket.create_connection(("127.0.0.1", server.port))
        partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: shutbox\r\nX-Slow: ")
        with silent, partial:
            # Closed after about a second; the bound is only there to end the test.
            assert closed_within(partial, 20), "half-sent headers kept open"
            assert closed_within(silent, 20), "a connection that sent nothing kept open"
        assert httpx.get(f"{server.url}/healthz").status_code == 200
    finally:
        server.stop()


def requests_counted(url: str, path: str) -> dict[str, float]:
    """Requests to ``path`` counted by /metrics, by status."""
    counted: dict[str, float] = {}
    for line in httpx.get(f"{url}/metrics").text.splitlines():
        found = re.match(r"shutbox_requests_total\{(.*)\} (\S+)$", line)
        if found and f'path="{path}"' in found[1]:
            status = re.search(r'status="(\d+)"', found[1])
            assert status is not None
            counted[status[1]] = counted.get(status[1], 0) + float(found[2])
    return counted


def test_a_client_that_hangs_up_mid_body_is_a_499(server_env: dict[str, str]) -> None:
    server = ServerProcess({**server_env, "SHUTBOX_LOG_LEVEL": "INFO"}, workers=2).start()
    try:
        for _ in range(4):
            with socket.create_connection(("127.0.0.1", server.port)) as connection:
                connection.sendall(PARTIAL_BODY)
                time.sleep(0.3)  # the app is reading the body when the client goes
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            counted = requests_counted(server.url, "/v1/analyze")
            if sum(counted.values()) >= 4:
                break
            time.sleep(0.2)
        output = server.output_with("client closed request")
    finally:
        server.stop()
    assert counted.get("499", 0) >= 1, counted
    assert set(counted) == {"499"}, counted  # never a 500
    assert "client closed request" in output
    assert "server error" not in output and "unhandled error" not in output, output[-3000:]


def trickled(bodies: list[tuple[socket.socket, bytes]], seconds: float) -> list[bytes | None]:
    """Send each connection its next bit of body every 0.2 s until the server answers,
    then read until it closes the connection: what each received, or None for one still
    open after ``seconds`` (the bound only ends the test)."""
    received = [b""] * len(bodies)
    closed = [False] * len(bodies)
    for connection, _more in bodies:
        connection.setblocking(False)
    deadline = time.monotonic() + seconds
    while not all(closed) and time.monotonic() < deadline:
        time.sleep(0.2)
        for n, (connection, more) in enumerate(bodies):
            if closed[n]:
                continue
            try:
                while chunk := connection.recv(65536):
                    received[n] += chunk
                closed[n] = True
            except BlockingIOError:
                if not received[n]:  # nothing more once the answer has begun
                    connection.sendall(more)
            except ConnectionResetError:
                closed[n] = True
    return [got if shut else None for got, shut in zip(received, closed, strict=True)]


def started(port: int, head: bytes, *, chunked: bool) -> tuple[socket.socket, bytes]:
    """A connection that has sent a request's headers and the first byte of its body,
    and what it sends as each next bit: a byte, in a chunk of its own if chunked."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(head + (b"1\r\n{\r\n" if chunked else b"{"))
    return connection, b"1\r\n \r\n" if chunked else b" "


def test_a_body_that_does_not_arrive_in_time_is_a_408_and_closed(
    server_env: dict[str, str],
) -> None:
    """Before the framework (an analysis that says its length) and in it (the same sent
    in chunks, a new player): the body trickles in a byte at a time, each well within
    any per-read timeout, and is cut off at the body timeout: 408, the connection
    closed. The server answers others meanwhile."""
    server = ServerProcess({**server_env, "SHUTBOX_BODY_TIMEOUT": "1"}, workers=1).start()
    kind = b"Host: shutbox\r\nContent-Type: application/json\r\nAccept-Language: de\r\n"
    stated, chunks = b"Content-Length: 1000\r\n\r\n", b"Transfer-Encoding: chunked\r\n\r\n"
    requests = {
        "analysis, its length stated": (b"POST /v1/analyze HTTP/1.1\r\n" + kind + stated, False),
        "analysis, in chunks": (b"POST /v1/analyze HTTP/1.1\r\n" + kind + chunks, True),
        "new player": (b"POST /v1/players HTTP/1.1\r\n" + kind + stated, False),
    }
    try:
        bodies = [started(server.port, head, chunked=c) for head, c in requests.values()]
        try:
            answers = trickled(bodies, 30)
        finally:
            for connection, _more in bodies:
                connection.close()
        assert httpx.get(f"{server.url}/healthz").status_code == 200
    finally:
        server.stop()
    for what, answer in zip(requests, answers, strict=True):
        assert answer is not None, f"{what}: the connection was kept open"
        head, _, body = answer.partition(b"\r\n\r\n")
        status, *fields = head.decode("latin-1").split("\r\n")
        headers = dict(field.lower().split(": ", 1) for field in fields)
        assert status.startswith("HTTP/1.1 408 "), (what, answer)
        assert headers["connection"] == "close", what
        assert headers["content-type"] == "application/problem+json", what
        assert headers["content-language"] == "de", what
        problem = json.loads(body)
        assert (problem["type"], problem["status"]) == ("/problems/request-timeout", 408), what


def test_the_body_timeout_is_a_setting_with_bounds() -> None:
    assert Settings().body_timeout == 10
    assert Settings.from_env({"SHUTBOX_BODY_TIMEOUT": "2.5"}).body_timeout == 2.5
    for bad in ("0", "-1", "nan", "3601", "soon"):
        with pytest.raises(SettingsError):
            Settings.from_env({"SHUTBOX_BODY_TIMEOUT": bad})


def raw_answer(port: int, request: bytes) -> bytes:
    """What the server answers ``request`` on a connection of its own, whole."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_a_repeated_header_is_refused_whichever_way_the_request_takes(
    two_workers: ServerProcess,
) -> None:
    """Two Content-Types (text, then JSON; or the other way round) or two Authorizations:
    400 invalid-request both before the framework (a body of stated length, on the hot
    routes) and in it (the same body in chunks), nothing stored. Two Content-Lengths
    never reach the app as two: the server takes equal ones as one and refuses others."""
    server = two_workers
    with httpx.Client(base_url=server.url, timeout=30) as http:
        dice = derive_dice(b"repeated", "box/R1", Rules().rolls)
        analysis = json.dumps({"dice": dice, "moves": legal_run(dice)}).encode()
        today = datetime.now(UTC).date().isoformat()
        daily = [tuple(roll) for roll in http.get(f"/v1/daily/{today}").json()["dice"]]
        run = json.dumps({"moves": legal_run(daily)}).encode()
        player = http.post("/v1/players", json={"time_zone": "UTC"}).json()
        token = auth(player)["Authorization"]
        json_type = ("content-type", "application/json")
        text_type = ("content-type", "text/plain")
        sent: list[tuple[str, bytes, list[tuple[str, str]]]] = [
            ("/v1/analyze", analysis, [text_type, json_type]),
            ("/v1/analyze", analysis, [json_type, text_type]),
            (f"/v1/daily/{today}/runs", run, [json_type, ("authorization", token)] * 2),
            (
                f"/v1/daily/{today}/runs",
                run,
                [json_type, ("authorization", token), ("authorization", "Bearer x")],
            ),
        ]
        for path, body, headers in sent:
            contents: dict[str, Any] = {"stated": body, "chunked": iter([body[:5], body[5:]])}
            for way, content in contents.items():
                answer = http.post(path, content=content, headers=headers)
                assert answer.status_code == 400, (path, headers, way, answer.text)
                assert answer.json()["type"] == "/problems/invalid-request"
        mine = http.get(f"/v1/daily/{today}/runs/me", headers={"Authorization": token})
        assert mine.status_code == 404, mine.text  # no run was stored
        head = b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\nConnection: close\r\n"
        head += b"Content-Type: application/json\r\n"
        length = b"Content-Length: %d\r\n" % len(analysis)
        twice = raw_answer(server.port, head + length + length + b"\r\n" + analysis)
        assert twice.startswith(b"HTTP/1.1 200 "), twice[:200]
        other = length + b"Content-Length: %d\r\n" % (len(analysis) - 1)
        refused = raw_answer(server.port, head + other + b"\r\n" + analysis)
        assert refused.startswith(b"HTTP/1.1 400 "), refused[:200]


def next_answer(connection: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """The status line, the headers (names in lower case) and the body (of the length
    it says) of the next answer on a connection."""
    connection.settimeout(30)
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(4096)
        assert chunk, f"closed before an answer: {received!r}"
        received += chunk
    head, body = received.split(b"\r\n\r\n", 1)
    status, *fields = head.decode("latin-1").split("\r\n")
    headers = dict(field.lower().split(": ", 1) for field in fields)
    while len(body) < int(headers["content-length"]):
        chunk = connection.recv(4096)
        assert chunk, f"closed mid-answer: {received!r}"
        body += chunk
    return status, headers, body


def test_an_answer_given_before_its_body_arrived_says_the_connection_closes(
    two_workers: ServerProcess,
) -> None:
    """The server does not read what is left of a body nobody read: it closes the
    connection after the answer. An answer given from the headers alone, the body not
    sent yet, says so (``Connection: close``), whichever way it was given (refused
    before the framework, by its router), so that a client does not send its next
    request into a closed connection. A request read whole keeps its connection."""
    server = two_workers
    dice = derive_dice(b"unread", "box/U1", Rules().rolls)
    body = json.dumps({"dice": dice, "moves": legal_run(dice)}).encode()
    length = b"Content-Length: %d\r\n" % len(body)
    json_type = b"Content-Type: application/json\r\n"
    heads = {
        "a header repeated, on a hot route": (
            b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\n" + json_type * 2 + length,
            "400",
        ),
        "a body in chunks, a header repeated": (
            b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\n"
            + json_type * 2
            + b"Transfer-Encoding: chunked\r\n",
            "400",
        ),
        "a path no route takes": (
            b"POST /v1/nowhere HTTP/1.1\r\nHost: shutbox\r\n" + json_type + length,
            "404",
        ),
        "a method the path does not take": (
            b"POST /healthz HTTP/1.1\r\nHost: shutbox\r\n" + json_type + length,
            "405",
        ),
    }
    for what, (head, status) in heads.items():
        with socket.create_connection(("127.0.0.1", server.port)) as connection:
            connection.sendall(head + b"\r\n")  # the body is not sent
            line, headers, _body = next_answer(connection)
            assert line.startswith(f"HTTP/1.1 {status} "), (what, line)
            assert headers.get("connection") == "close", (what, headers)
            assert closed_within(connection, 30), what
    whole = b"POST /v1/analyze HTTP/1.1\r\nHost: shutbox\r\n" + json_type + length
    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        for _ in range(2):  # the same connection answers again
            connection.sendall(whole + b"\r\n" + body)
            line, headers, answer = next_answer(connection)
            assert line.startswith("HTTP/1.1 200 "), line
            assert "connection" not in headers, headers
            assert json.loads(answer)["score"] is not None
