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


def test_solve_has_a_flag_for_every_newer_field(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--json", "--move-rule", "die_or_sum_both", "--total", "sum_or_difference"]
    argv += ["--one-die", "high_closed", "--one-die-choice", "mandatory"]
    assert main([*argv, "--first-must-close", "3", "--stop-on-total", "7", "--start", "2,3,9"]) == 0
    printed = json.loads(capsys.readouterr().out)
    rules = Rules(
        move_rule="die_or_sum_both", total="sum_or_difference", one_die="high_closed",
        one_die_choice="mandatory", first_must_close=3, stop_on_total=7, start=(2, 3, 9),
    )  # fmt: skip
    assert printed == json.loads(msgspec.json.encode(solution(rules)))
    assert main(["solve", "--stop-on-total", "7", "--first-must-close", "2"]) == 0
    assert "scoring sum, first must close 2, stop on total 7\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--first-must-close", "10"], "first_must_close: tile 10 is not on a box of tiles 1..9"),
        (["--start", "4,5", "--first-must-close", "3"], "first_must_close: tile 3 is not open"),
        (["--stop-on-total", "1"], "stop_on_total"),
    ],
)
def test_solve_refuses_newer_fields_that_do_not_fit(
    capsys: pytest.CaptureFixture[str], argv: list[str], error: str
) -> None:
    assert main(["solve", *argv]) == 2
    assert error in capsys.readouterr().err


def test_solve_refuses_impossible_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--tiles", "6", "--start", "7"]) == 2
    assert "start: tile 7 is not on a box of tiles 1..6" in capsys.readouterr().err


def test_solve_prints_a_readable_table() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "solve"], capture_output=True, text=True, check=True
    ).stdout
    assert "Expected score under the optimum: 11.1575" in out
    assert "Best shut chance:                 7.1432%" in out
