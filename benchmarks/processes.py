"""What the benchmarks share: free loopback ports, and the servers and other processes
they start, each in a process group of its own with its output in a log file."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
HOST: Final = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def log_tail(path: Path, lines: int = 30) -> str:
    if not path.exists():
        return ""
    text = path.read_text(errors="replace").splitlines()
    return "\n".join(f"  | {line}" for line in text[-lines:])


class Spawned:
    """A subprocess in its own process group (a server's workers and solver processes
    with it), its output appended to a log file."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        env: dict[str, str],
        log: Path,
        stop_seconds: float = 20.0,
    ) -> None:
        self.name = name
        self.log = log
        self.stop_seconds = stop_seconds
        with log.open("ab") as output:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise SystemExit(
                f"{self.name} exited with {self.process.returncode}\n" + log_tail(self.log)
            )

    def stop(self) -> None:
        """SIGTERM, then SIGKILL to what is left of its group."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(self.stop_seconds)
            except subprocess.TimeoutExpired:
                print(f"{self.name} ignored SIGTERM, killing it", file=sys.stderr)
        with suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value
