"""A Redis Cluster of three local ``redis-server`` primaries (no replicas), for the tests
that run the Redis paths on a cluster. ``redis-server`` and ``redis-cli`` come from
``PATH``; the nodes keep nothing on disk but their cluster files, in a temporary
directory removed with the cluster."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from tests.conftest import free_port, wait_for_redis


class LocalRedisCluster:
    """``with LocalRedisCluster() as cluster:`` a cluster at ``cluster.url`` until the end."""

    def __init__(self, primaries: int = 3) -> None:
        self.ports = [free_port() for _ in range(primaries)]
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}"
        self.processes: list[subprocess.Popen[bytes]] = []
        self._directory = tempfile.TemporaryDirectory(prefix="shutbox-redis-cluster-")

    def __enter__(self) -> LocalRedisCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        directory = Path(self._directory.name)
        for port in self.ports:
            self.processes.append(
                subprocess.Popen(
                    ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                     "--cluster-enabled", "yes", "--cluster-port", str(free_port()),
                     "--cluster-config-file", f"nodes-{port}.conf",
                     "--cluster-node-timeout", "2000", "--dir", str(directory),
                     "--save", "", "--appendonly", "no"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
            )  # fmt: skip
        for port in self.ports:
            wait_for_redis(port)
        subprocess.run(
            ["redis-cli", "--cluster", "create",
             *(f"127.0.0.1:{port}" for port in self.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        for port in self.ports:
            wait_for_redis(
                port,
                lambda node: node.cluster("info")["cluster_state"] == "ok",
                "did not join the cluster",
            )

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = []
        self._directory.cleanup()
