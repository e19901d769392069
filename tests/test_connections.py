"""Connections that misbehave, against a real server process (``shutbox serve``, two
workers): one that never finishes its request headers is closed, and a client that
hangs up mid-body is counted and logged as a 499, not as a server error."""

from __future__ import annotations

import re
import socket
import time

import httpx

from tests.conftest import ServerProcess

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
