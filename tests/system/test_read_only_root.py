"""``shutbox serve`` on a read-only root filesystem, as the hardened container runs it
(``docker-compose.yml``: ``read_only: true``, a tmpfs at ``/tmp``): with two workers it
writes at start-up nowhere but ``/tmp`` or the directory ``SHUTBOX_METRICS_DIR`` names,
and where neither is writable it stops with a message saying so.

The read-only root is real, not pretended: the server runs in a mount namespace of its
own (``unshare``, root only) where every filesystem is remounted read-only and a new
tmpfs is mounted only where the case says. The container's tmpfs at ``/tmp`` is played
by ``TMPDIR`` on a tmpfs elsewhere: one over ``/tmp`` would hide a checkout that lives
there.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, ServerProcess, fetchval
from tests.resources import free_port

VARIANT = "tiles = $1 AND one_die = $2 AND move_rule = $3 AND scoring = $4"
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="a mount namespace with a read-only root needs root"
)


# Every filesystem read-only but /proc, /sys and /dev (a read_only container keeps
# /dev/shm writable too).
READ_ONLY = (
    "for mounted in $(awk '{print $2}' /proc/self/mounts | grep -vE \"^/(proc|sys|dev)(/|$)\"); "
    'do mount -o remount,bind,ro "$mounted" || exit 1; done'
)


def read_only_root(*writable: str) -> list[str]:
    """A command prefix: what follows runs where every filesystem is read-only, with a
    new tmpfs at each ``writable`` directory (the host's mounts are left as they are)."""
    mounts = "".join(f" && mount -t tmpfs tmpfs {shlex.quote(path)}" for path in writable)
    script = f'{READ_ONLY}{mounts} && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"]


@needs_root
def test_the_namespace_is_read_only_but_its_tmpfs(tmp_path: Path) -> None:
    """What the cases below stand on: in there, the tmpfs is the one place to write."""
    wrapper = read_only_root(str(tmp_path))
    for elsewhere in (ROOT / f".read-only-probe-{os.getpid()}", Path("/tmp/read-only-probe")):
        wrote = subprocess.run([*wrapper, "touch", str(elsewhere)], capture_output=True)
        assert wrote.returncode != 0 and b"Read-only file system" in wrote.stderr, elsewhere
        assert not elsewhere.exists()
    wrote = subprocess.run([*wrapper, "touch", str(tmp_path / "probe")], capture_output=True)
    assert wrote.returncode == 0, wrote.stderr
    assert not (tmp_path / "probe").exists(), "the tmpfs is the namespace's own"


@needs_root
@pytest.mark.parametrize("where", ["tmpdir-on-tmpfs", "metrics-dir"])
def test_two_workers_serve_on_a_read_only_root(
    where: str, server_env: dict[str, str], database_url: str, tmp_path: Path
) -> None:
    writable = tmp_path / "tmpfs"
    writable.mkdir()
    wrapper = read_only_root(str(writable))
    if where == "tmpdir-on-tmpfs":  # docker-compose.yml's container: a tmpfs at /tmp
        env = {"TMPDIR": str(writable)}
    else:  # no usable temporary directory at all: only the one the setting names
        env = {"SHUTBOX_METRICS_DIR": str(writable), "TMPDIR": str(tmp_path / "missing")}
    server = ServerProcess({**server_env, **env}, workers=2, wrapper=wrapper).start()
    try:
        # A variant solved nowhere yet (the new workers hold no tables): solved in a
        # solver process, spawned in there too, and stored.
        rules = {"tiles": 4, "one_die": "never", "move_rule": "single", "scoring": "count"}
        asyncio.run(
            fetchval(database_url, f"DELETE FROM solver_tables WHERE {VARIANT}", *rules.values())
        )
        solved = httpx.get(f"{server.url}/v1/solution", params=rules, timeout=60)
        assert solved.status_code == 200, solved.text
        stored = f"SELECT count(*) FROM solver_tables WHERE {VARIANT}"
        assert asyncio.run(fetchval(database_url, stored, *rules.values())) == 1
        for _ in range(8):  # over both workers
            assert httpx.get(f"{server.url}/healthz").status_code == 200
        scraped = httpx.get(f"{server.url}/metrics")
        assert scraped.status_code == 200
        # The workers' files, read together (one process's registry has gc metrics).
        assert 'shutbox_requests_total{method="GET",path="/healthz",status="200"}' in scraped.text
        assert "python_gc_objects_collected_total" not in scraped.text
        assert "Traceback" not in server.output()
    finally:
        server.stop()


def serve_briefly(env: dict[str, str], wrapper: list[str]) -> tuple[int | None, str]:
    """``shutbox serve`` with two workers: its exit code (None when it was still
    serving after 30 s, and stopped then) and what it printed to stderr."""
    command = [sys.executable, "-m", "service.cli", "serve", "--workers", "2"]
    command += ["--port", str(free_port())]
    # Not measured by coverage.py (docs/development.md): it has nowhere to write either.
    measured = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")
    inherited = {name: value for name, value in os.environ.items() if name not in measured}
    process = subprocess.Popen(
        [*wrapper, *command],
        env={**inherited, **env},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers in its group, stopped with it
    )
    try:
        _, stderr = process.communicate(timeout=30)
        return process.returncode, stderr
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return None, process.communicate()[1]
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


@needs_root
def test_nowhere_to_write_stops_with_a_message(server_env: dict[str, str]) -> None:
    code, stderr = serve_briefly(server_env, read_only_root())
    assert code == 2, stderr[-2000:]
    assert "Traceback" not in stderr
    assert "2 workers keep their metrics in files" in stderr
    assert "mount a tmpfs at /tmp or name a writable directory in SHUTBOX_METRICS_DIR" in stderr


def test_a_metrics_dir_that_is_missing_stops_with_a_message(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing"
    code, stderr = serve_briefly({**server_env, "SHUTBOX_METRICS_DIR": str(missing)}, [])
    assert code == 2, stderr[-2000:]
    assert "Traceback" not in stderr
    assert f"in SHUTBOX_METRICS_DIR {missing}: No such file or directory" in stderr
