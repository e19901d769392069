"""Dice sequences: the fixed rolls that everyone playing a sequence gets.

Algorithm ``hmac-sha256-v1`` (golden vectors in the tests pin it):

1. For block ``b = 0, 1, 2, ...`` compute
   ``HMAC-SHA256(key=secret, message=UTF-8("<sequence id>\\n<b>"))``, 32 bytes.
2. Read the bytes in order. A byte ``x < 252`` gives the outcome ``o = x mod 36``,
   the roll ``(o // 6 + 1, o mod 6 + 1)``; a byte ``x >= 252`` is skipped, so every
   one of the 36 outcomes is exactly equally likely (252 = 7 x 36, no modulo bias).
3. Stop once the sequence has its rolls (``tiles + 1``).

Without the secret the rolls cannot be predicted. A longer sequence begins with
the rolls of a shorter one for the same id. Sequence ids are ``daily/<date>`` and
``box/<code>``.

Friend Boxes made before dealt dice (PRODUCT.md §6b) were stored under
``hmac-sha256-marked-v1``: the first of the draws ``box/<code>#0``, ``box/<code>#1``, ...
that carried a mark; their dice are stored, and a box's dice are one draw again.

>>> derive_dice(b"secret", "daily/2026-11-29", 3)
((5, 2), (1, 3), (4, 1))
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from datetime import date
from typing import Final

from service.rules.ruleset import ALL_ROLLS, Roll, Rules
from service.rules.words import N_

ALGORITHM: Final = "hmac-sha256-v1"
_ROLLS: Final = frozenset(ALL_ROLLS)
_ACCEPT_BELOW: Final = 252


class InvalidDice(ValueError):
    """A dice sequence that cannot belong to these rules: why, as a template and values."""

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(template.format(**values))


def derive_dice(secret: bytes, sequence_id: str, rolls: int) -> tuple[Roll, ...]:
    """The first ``rolls`` rolls of the sequence ``sequence_id`` under ``secret``."""
    dice: list[Roll] = []
    block = 0
    while len(dice) < rolls:
        message = f"{sequence_id}\n{block}".encode()
        for byte in hmac.new(secret, message, hashlib.sha256).digest():
            if byte < _ACCEPT_BELOW:
                outcome = byte % 36
                dice.append((outcome // 6 + 1, outcome % 6 + 1))
                if len(dice) == rolls:
                    break
        block += 1
    return tuple(dice)


def daily_sequence_id(day: date) -> str:
    """The id of the Daily Dice for a calendar date."""
    return f"daily/{day.isoformat()}"


def box_sequence_id(code: str) -> str:
    """The id of a Friend Box's sequence, from its canonical code."""
    return f"box/{code}"


def check_dice(rules: Rules, dice: Sequence[Sequence[int]]) -> tuple[Roll, ...]:
    """The dice as rolls, if they fit these rules; ``InvalidDice`` says why not."""
    if len(dice) != rules.rolls:
        raise InvalidDice(
            N_("dice: a sequence for {tiles} tiles has {rolls} rolls, not {given}"),
            tiles=rules.tiles,
            rolls=rules.rolls,
            given=len(dice),
        )
    rolls = tuple((roll[0], roll[1]) for roll in dice if len(roll) == 2)
    if len(rolls) == len(dice) and all(r in _ROLLS for r in rolls):
        return rolls
    index, roll = next(
        (index, roll)
        for index, roll in enumerate(dice)
        if len(roll) != 2 or tuple(roll) not in _ROLLS
    )
    raise InvalidDice(
        N_("dice[{index}]: a roll is two dice, each 1..6, not {roll}"), index=index, roll=list(roll)
    )
