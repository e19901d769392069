"""The game page's weight and load time: ``benchmarks/page_weight.mjs`` against a server
of its own.

    .venv/bin/python benchmarks/page_weight.py [--runs N] [--locale en-GB]

On loopback (127.0.0.1): a throwaway PostgreSQL database (dropped at the end), the
in-process cache, ``shutbox serve`` with one worker at its defaults (request log at
INFO, rate limits on at a rate one browser never reaches); then Debian's Chromium, driven
by playwright-core from ``tests/system/browser/node_modules``, loads ``/play`` at 390x844
(a first load, a reload, a later visit, each run in a new browser context) and prints
the requests that reached the server, the bytes transferred and the time until the view
is shown, on loopback and on a simulated slow phone network. Needs node, ``npm ci
--prefix tests/system/browser`` and ``/usr/bin/chromium`` (as the browser tests).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.processes import (
    ADMIN_URL,
    ROOT,
    UNREACHED_RATE_LIMIT,
    Spawned,
    answers_ok,
    service_env,
)
from tests.resources import HOST, free_port, throwaway_database

STARTUP_SECONDS: Final = 120.0
SCRIPT: Final = ROOT / "benchmarks" / "page_weight.mjs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="browser contexts per network")
    parser.add_argument("--locale", default="en-GB", help="the browser's language")
    args = parser.parse_args()
    node = shutil.which("node")
    if node is None:
        raise SystemExit("page_weight: node is not installed")
    with (
        tempfile.TemporaryDirectory() as scratch,
        throwaway_database(ADMIN_URL, "shutbox_page_weight") as url,
    ):
        env = service_env(url, "", "page-weight:", UNREACHED_RATE_LIMIT)
        del env["REDIS_URL"]  # the in-process cache
        port = free_port()
        command = [sys.executable, "-m", "service.cli", "serve", "--host", HOST]
        command += ["--port", str(port), "--workers", "1"]
        server = Spawned("server", command, env, Path(scratch) / "server.log")
        base_url = f"http://{HOST}:{port}"
        try:
            ready = f"{base_url}/readyz"
            failure = "page_weight: the server did not become ready"
            server.wait_until(lambda: answers_ok(ready), failure, STARTUP_SECONDS, every=0.2)
            done = subprocess.run(
                [node, str(SCRIPT), base_url, "--runs", str(args.runs), "--locale", args.locale],
                cwd=ROOT,
                check=False,
            )
        finally:
            server.stop()
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
