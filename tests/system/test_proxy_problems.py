"""Every answer the proxy makes itself (deploy/nginx.conf) is a problem of the service's
registry, as ``application/problem+json``: a request it cannot read, a URI or headers too
large, a body too large or too slow, too many in flight, no replica up.

The configuration is read for every status nginx answers of its own; where nginx is
installed (Debian's ``nginx`` package: ``.ci/run`` installs it), it is started on this
configuration and sent the requests it refuses itself, and its answers are read back.
Debian's nginx is older than the one the configuration needs (an upstream's ``resolve``):
the test's copy names a local upstream instead, and writes its files in the test's
directory; every error page and limit is the file's own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.api import problems
from tests.resources import free_port
from tests.system.test_deployment import Directive, directives, http_block, proxy_config_path

# What nginx answers of its own, before or without the API: a request it cannot read
# (400), refuses (405: TRACE), too slow (408), a body, URI or headers too large (413,
# 414, 494), too many in flight (429, limit_conn_status), its own failure (500), a
# transfer coding or HTTP version it does not take (501, 505), no upstream (502-504),
# and a client asking for the URIs of these answers (404).
NGINX_OWN = (400, 404, 405, 408, 413, 414, 429, 494, 500, 501, 502, 503, 504, 505)


def server_block() -> list[Directive]:
    (server,) = [found[2] for found in directives(http_block(), "server")]
    return server


def answers() -> dict[int, tuple[int, dict[str, object], list[Directive]]]:
    """By status nginx meets: the status it answers, the problem it sends, and the
    location that sends it."""
    server = server_block()
    locations = {
        arguments[-1]: (arguments, block) for _, arguments, block in directives(server, "location")
    }
    found = {}
    for _, arguments, _ in directives(server, "error_page"):
        *codes, target = arguments
        answered = None
        if codes[-1].startswith("="):
            answered = int(codes.pop()[1:])
        where, block = locations[target]
        assert where == ["=", target], f"{target}: not an exact location"
        (returned,) = directives(block, "return")
        status, body = int(returned[1][0]), returned[1][1]
        for code in codes:
            assert (answered or int(code)) == status, f"error_page {code} answers {status}"
            found[int(code)] = (status, json.loads(body.strip("'")), block)
    return found


def test_every_answer_nginx_makes_itself_is_a_registered_problem() -> None:
    found = answers()
    assert set(found) == set(NGINX_OWN), sorted(set(NGINX_OWN) ^ set(found))
    for code, (status, problem, block) in found.items():
        assert directives(block, "internal"), f"{code}: a client can ask for its answer"
        assert directives(block, "default_type")[0][1] == [problems.MEDIA_TYPE], code
        slug = str(problem["type"]).removeprefix(problems.TYPE_PREFIX)
        kind = problems.PROBLEMS.get(slug)
        assert kind is not None, f"{code}: {problem['type']} is not a problem of the service"
        assert problem == {
            "type": kind.uri,
            "title": kind.title,
            "status": kind.status,
            "detail": problem["detail"],
        }, code
        assert status == kind.status, code
    # What the OpenAPI document says the proxy answers on every operation, it answers.
    assert {kind.status for kind in problems.PROXY} <= {status for status, _, _ in found.values()}
    retried = {code for code, (_, _, block) in found.items() if directives(block, "add_header")}
    assert retried == {429, 502, 503, 504}, "Retry-After on a 429 and a 503, nowhere else"


# --- nginx started on the configuration -----------------------------------------------


def local_config(directory: Path, port: int, upstream: int) -> Path:
    """The configuration as the test runs it: listening on ``port`` of loopback, its
    upstream ``upstream`` (nothing listens there), its files in ``directory``."""
    text = proxy_config_path().read_text()
    replaced = {
        r"\n\s*listen 80;": f"\n        listen 127.0.0.1:{port};",
        r"server api:8000 resolve;": f"server 127.0.0.1:{upstream};",
        r"\n\s*resolver [^;]*;": "\n",
        r"\bworker_processes auto;": "worker_processes 1;",
    }
    for pattern, replacement in replaced.items():
        text, count = re.subn(pattern, replacement, text)
        assert count == 1, f"{pattern} is not in deploy/nginx.conf once"
    text = text.replace("/var/log/nginx/", f"{directory}/")
    paths = "".join(
        f"    {kind}_temp_path {directory}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    text = text.replace("http {\n", "http {\n" + paths, 1)
    config = directory / "nginx.conf"
    config.write_text(text)
    return config


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[int]:
    """nginx on the configuration, with no API behind it: the port it listens on."""
    binary = shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
    )
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is not installed: apt-get install nginx (.ci/run does)")
        pytest.skip("no nginx (Debian's nginx package)")
    port = free_port()
    config = local_config(tmp_path, port, free_port())
    command = [binary, "-p", str(tmp_path), "-c", str(config)]
    command += ["-e", str(tmp_path / "error.log"), "-g", f"daemon off; pid {tmp_path}/nginx.pid;"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            if process.poll() is not None:
                output = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"nginx exited: {output}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """One raw request, and the status, headers and body nginx answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            assert chunk, f"closed without an answer: {received!r}"
            received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers["content-length"])
        while len(body) < length:
            chunk = connection.recv(65536)
            assert chunk, "closed mid-body"
            body += chunk
    return int(lines[0].split()[1]), headers, body[:length]


REFUSED = {
    "a malformed request line": (b"GET /v1/daily HTTP/1.1 and more\r\nHost: x\r\n\r\n", 400),
    "no request line at all": (b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 400),
    "a 9 KB URI": (b"GET /v1/" + b"a" * 9216 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    "a 40 KB header": (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 40960 + b"\r\n\r\n", 494),
    "TRACE": (b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    "an unknown transfer coding": (
        b"POST /v1/hint HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        501,
    ),
    "HTTP/2.0 in a request line": (b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    "a body over the limit": (
        b"POST /v1/hint HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n",
        413,
    ),
    "no API behind it": (b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 502),
    "one of its own answers' URIs": (b"GET /.proxy/uri-too-long HTTP/1.1\r\nHost: x\r\n\r\n", 404),
}


@pytest.mark.parametrize("request_sent", list(REFUSED), ids=list(REFUSED))
def test_nginx_answers_what_it_refuses_as_problem_details(proxy: int, request_sent: str) -> None:
    raw, met = REFUSED[request_sent]
    status, problem, _ = answers()[met]
    answered, headers, body = exchange(proxy, raw)
    assert answered == status, (answered, body)
    assert headers["content-type"] == problems.MEDIA_TYPE, headers
    assert json.loads(body) == problem
    assert ("retry-after" in headers) == (status in (429, 503)), headers
