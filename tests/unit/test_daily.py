"""The Daily Dice's pure rules (``service.usecases.daily``): which dates exist, and the
share text that gives nothing of the dice away."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from service.rules.analysis import report
from service.rules.replay import Move
from service.rules.ruleset import Rules
from service.support.i18n import speaking
from service.usecases.daily import UNPLAYABLE, UnknownDate, check_begun, share_text
from tests.unit.rules.strategies import dice_of

LAUNCH = date(2026, 1, 1)
DAY = date(2026, 11, 29)


def test_a_date_exists_from_the_launch_once_it_has_begun_somewhere() -> None:
    # UTC+14 is the first to reach a date: at 10:00 UTC the day before.
    check_begun(DAY, LAUNCH, datetime(2026, 11, 28, 10, 0, tzinfo=UTC))
    with pytest.raises(UnknownDate) as early:
        check_begun(DAY, LAUNCH, datetime(2026, 11, 28, 9, 59, tzinfo=UTC))
    assert early.value.day == DAY and early.value.launch is None
    with pytest.raises(UnknownDate) as before_launch:
        check_begun(date(2025, 12, 31), LAUNCH, datetime(2026, 11, 28, tzinfo=UTC))
    assert before_launch.value.launch == LAUNCH


def test_the_share_text_names_the_date_the_outcome_and_one_symbol_a_roll() -> None:
    dice = dice_of("34 66 11 12 23 55 66 11 22 33")
    verified = report(Rules(), dice, [Move(tiles=(3, 4)), Move(tiles=(1, 2, 9))], "daily/x")
    with speaking("en"):
        text = share_text(DAY, verified)
    # Two blunders, then 1 + 1 with 1 and 2 closed: the roll that could not be played.
    assert (
        text == f"Shut the Box Challenge November 29, 2026\nScore 26 in 3 rolls\n🟥🟥{UNPLAYABLE}"
    )
    assert not any(c.isdigit() for c in text.split("\n")[2])  # no tiles, no dice


def test_a_shut_box_says_so_in_the_language_asked() -> None:
    dice = dice_of("66 56 56 56 11 22 33 44 55 66")
    moves = [Move(tiles=(9, 3)), Move(tiles=(8, 2, 1)), Move(tiles=(7, 4)), Move(tiles=(6, 5))]
    verified = report(Rules(), dice, moves, "daily/x")
    assert verified.run.shut
    with speaking("de"):
        text = share_text(DAY, verified)
    assert text.split("\n")[:2] == [
        "Shut the Box Challenge 29. November 2026",
        "Box geschlossen in 4 Würfen!",
    ]
    assert len(text.split("\n")[2]) == 4  # one symbol a roll, none unplayable
