"""Schemathesis against a running server: every response matches the committed OpenAPI
document, schema-valid input is accepted (tests/schemathesis.toml says where the contract
refuses some), and no input, however odd, gets a 500. Every phase, every check."""

from __future__ import annotations

import re
import subprocess
import sys

import httpx

from tests.conftest import ROOT, ServerProcess

PHASES = "examples,coverage,fuzzing,stateful"
EXAMPLES = 30  # an operation (fuzzing; the coverage phase makes its own cases)


def test_schemathesis_finds_nothing(two_workers: ServerProcess) -> None:
    server = two_workers
    token = httpx.post(f"{server.url}/v1/players", json={"name": "Fuzz"}).json()["token"]
    schemathesis = [sys.executable, "-m", "schemathesis.cli"]
    result = subprocess.run(
        [
            *schemathesis, "--config-file", "tests/schemathesis.toml",
            "run", "openapi/openapi.json", "--url", server.url,
            "--checks", "all", "--phases", PHASES,
            "--max-examples", str(EXAMPLES), "--seed", "20261129",
            "--header", f"Authorization: Bearer {token}",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    report = result.stdout[-6000:] + result.stderr[-2000:]
    assert result.returncode == 0, report
    counted = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counted is not None and counted[1] == counted[2] != "0", report  # every case passed
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert re.search(rf"✅ {phase}\b", report), report  # each phase ran, and passed
