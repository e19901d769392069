"""The Python client that openapi-python-client (pinned in pyproject.toml's dev extra)
generates from the committed OpenAPI document alone: it generates every operation without
a warning, it and a program using it (``python_client_e2e.py``) pass ``mypy --strict``,
and that program plays the game against a live server and reads the proxy's own answers
(deploy/nginx.conf) as the problems the document names.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.api import problems
from tests.conftest import ROOT, ServerProcess

DOCUMENT = ROOT / "openapi" / "openapi.json"
PROGRAM = Path(__file__).with_name("python_client_e2e.py")
PACKAGE = "shutbox_client"
BIN = Path(sys.executable).parent
# The generator's own client.py, the same whatever the document: its __exit__(*args:
# object) hands objects to httpx's typed __exit__ (openapi-python-client 0.29.1).
GENERATORS_OWN = re.compile(
    rf"^{PACKAGE}/client\.py:\d+: error: Argument 1 to \"__a?exit__\" of \"(Async)?Client\" "
    r"has incompatible type .*\[arg-type\]$"
)


def _run(command: list[str | Path], cwd: Path, **env: str) -> tuple[int, str]:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env},
        capture_output=True,
        text=True,
        timeout=600,  # a guard against a hang, not a limit on speed
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The client generated into a directory of its own (with the project's ruff, which
    the generator runs on what it wrote), and what the generator said."""
    where = tmp_path_factory.mktemp("python-client")
    config = where / "config.json"
    config.write_text(json.dumps({"package_name_override": PACKAGE}))
    command: list[str | Path] = [BIN / "openapi-python-client", "generate", "--path", DOCUMENT]
    command += ["--meta", "none", "--output-path", where / PACKAGE, "--config", config]
    status, output = _run(command, cwd=where)
    assert status == 0, f"{shlex.join(map(str, command))} failed:\n{output}"
    return where, output


def test_the_client_generates_every_operation_without_a_warning(
    generated: tuple[Path, str],
) -> None:
    where, output = generated
    assert "warning" not in output.lower() and "error" not in output.lower(), output
    document = json.loads(DOCUMENT.read_text())
    operations = {
        re.sub(r"(?<!^)(?=[A-Z])", "_", operation["operationId"]).lower()
        for item in document["paths"].values()
        for operation in item.values()
    }
    modules = {p.stem for p in (where / PACKAGE / "api").glob("*/*.py") if p.stem != "__init__"}
    assert modules == operations


def test_the_client_and_a_program_using_it_pass_mypy_strict(generated: tuple[Path, str]) -> None:
    where, _ = generated
    shutil.copy(PROGRAM, where / PROGRAM.name)
    command: list[str | Path] = [sys.executable, "-m", "mypy", "--strict", PACKAGE, PROGRAM.name]
    status, output = _run(command, cwd=where)
    errors = [line for line in output.splitlines() if ": error: " in line]
    # Errors here are answers the document describes otherwise than the client reads them.
    assert [e for e in errors if not GENERATORS_OWN.match(e)] == [], output
    assert status == 0 or errors, output


def test_the_client_reads_the_proxys_own_answers_as_the_documented_problems(
    generated: tuple[Path, str],
) -> None:
    where, _ = generated
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    every = [
        [int(status), body] for status, body in re.findall(r"return (\d{3}) '(\{.*\})';", config)
    ]
    # On every operation, what problems.PROXY documents; its 405 (to a TRACE) and its
    # 404 (at the URIs of its own answers) are on no operation.
    fronted = {kind.status for kind in problems.PROXY}
    answers = [answer for answer in every if answer[0] in fronted]
    assert {status for status, _ in every} - fronted == {404, 405}
    assert {status for status, _ in answers} == fronted, "a documented answer nginx lacks"
    status, output = _run(
        [sys.executable, PROGRAM, "proxy", json.dumps(answers)], cwd=ROOT, PYTHONPATH=str(where)
    )
    assert status == 0 and f"ok the proxy's answers ({len(answers)})" in output, output


def test_the_client_plays_against_a_live_server(
    generated: tuple[Path, str], two_workers: ServerProcess
) -> None:
    where, _ = generated
    server = two_workers
    status, output = _run(
        [sys.executable, PROGRAM, "play", server.url], cwd=ROOT, PYTHONPATH=str(where)
    )
    assert status == 0, f"{output}\nserver output:\n{server.output()[-4000:]}"
    for scenario in ("Daily Dice", "Friend Box"):
        assert f"ok {scenario}" in output, output
