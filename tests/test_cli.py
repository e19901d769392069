"""The ``shutbox`` command line."""

from __future__ import annotations

import json
import subprocess
import sys

import msgspec
import pytest

from service.cli import main
from service.rules.ruleset import Rules
from service.rules.solver import solution


def test_solve_json_has_exactly_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert set(printed) == {"expected_score", "p_shut", "hint_policy", "distribution"}
    assert set(printed["hint_policy"]) == {"p_shut", "expected_score"}
    assert round(printed["expected_score"], 2) == 11.16
    assert round(printed["p_shut"], 4) == 0.0714  # a fraction, not a percentage
    assert all(isinstance(k, str) and k.isdigit() for k in printed["distribution"])
    assert abs(sum(printed["distribution"].values()) - 1) < 1e-9


def test_solve_flags_select_the_variant(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--json", "--tiles", "10", "--one-die", "sum_le_6", "--move-rule", "single"]
    assert main([*argv, "--scoring", "digits", "--start", "4,5,6", "7", "8,9,10"]) == 0
    printed = json.loads(capsys.readouterr().out)
    rules = Rules(
        tiles=10, one_die="sum_le_6", move_rule="single", scoring="digits",
        start=(4, 5, 6, 7, 8, 9, 10),
    )  # fmt: skip
    assert printed == json.loads(msgspec.json.encode(solution(rules)))


def test_solve_refuses_impossible_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--tiles", "6", "--start", "7"]) == 2
    assert "start: tile 7 is not on a box of tiles 1..6" in capsys.readouterr().err


def test_solve_prints_a_readable_table() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "solve"], capture_output=True, text=True, check=True
    ).stdout
    assert "Expected score under the optimum: 11.1575" in out
    assert "Best shut chance:                 7.1432%" in out
