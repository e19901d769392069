"""Fair play: the key that recognises the dice of a live challenge in any disguise, and
the mark that the dice of every Friend Box (and of every series round) carry.

The analysis of a run is decided by less than its dice: where only sums matter (the
standard move rule and two dice always, the Daily Dice's rules), by the sequence of
totals; under every other rule by each roll's two dice, in either order. And only by the
rolls a turn can reach: each played roll closes tiles adding up to its total, so once the
totals so far add up to the box's tiles (45 on nine tiles), no later roll is ever played.
An in-play sequence's key (``deciding_key``) is that: the totals (or unordered pairs) of
its first rolls, as many as a turn on the box can reach but at least ``MIN_ROLLS`` (or all
of a shorter sequence). Dice to analyse are refused when any of their candidate keys
(``Candidates``) is an in-play key: the same rolls in another order, a roll replaced by
another of the same total, other late rolls or other rules on the same first rolls all
give the same key.

Box dice are marked (``Mark``): a keyed hash of their key's first rolls has its low
``MARK_BITS`` bits zero. Dice whose candidate keys carry no mark are no box's, decided in memory
without asking anyone; only the marked few need the boxes' index (2 in 1,024 dice:
their totals or their pairs may be marked; every dice of fewer than ``MIN_ROLLS``
rolls). The mark is a secret subset of the keys, so box dice stay
unpredictable to anyone without the secret.

>>> standard = deciding_key(((6, 5), (2, 3), (4, 4), (1, 2), (3, 3), (6, 6), (2, 2), (5, 5),
...     (1, 1), (6, 4)), sums_only=True)
>>> standard == deciding_key(((5, 6), (1, 4), (4, 4), (2, 1), (3, 3), (6, 6), (2, 2), (5, 5),
...     (6, 6), (6, 6)), sums_only=True)
True
>>> standard in Candidates(((5, 6), (4, 1), (5, 3), (2, 1), (4, 2), (6, 6), (3, 1),
...     (5, 5), (1, 1), (6, 4), (1, 1), (2, 2), (3, 3)))
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Final

from service.rules.ruleset import Roll, Rules

MIN_ROLLS: Final = 7
"""The fewest rolls a key spans (a shorter sequence: all of them), so that the few dice
a small box can reach never make a key that refuses everyone else's dice."""
MARK_BITS: Final = 10
"""A box's dice are drawn among the dice whose first totals' keyed hash ends in this many
zero bits: one dice in 1,024 is marked; a new box costs about 1,024 draws (3.5 ms)."""
_MARK_MASK: Final = (1 << MARK_BITS) - 1
_SUMS, _PAIRS = b"s", b"p"
_PAIR_CODE: Final = {
    (a, b): 6 * (min(a, b) - 1) + max(a, b) for a in range(1, 7) for b in range(1, 7)
}


def only_sums_matter(rules: Rules) -> bool:
    """Whether every choice these rules allow depends on the rolls' totals alone: two
    dice always, a move rule of totals, and a roll counting as its sum (its difference,
    under ``sum_or_difference``, is more than its total). ``stop_on_total`` and
    ``first_must_close`` ask nothing more of a roll than its total."""
    return (
        not rules.one_die_variant.ever
        and rules.move_variant.by_total
        and rules.total_variant.by_sum
    )


def _reach(sums: Sequence[int], tiles: int) -> int:
    """How many rolls a turn on ``tiles`` tiles can reach, with these totals: up to the
    one that brings the totals to the sum of the tiles (at least ``MIN_ROLLS``)."""
    if len(sums) <= MIN_ROLLS:
        return len(sums)
    box, total = tiles * (tiles + 1) // 2, 0
    for index, value in enumerate(sums):
        total += value
        if total >= box:
            return max(index + 1, MIN_ROLLS)
    return len(sums)


def deciding_key(dice: Sequence[Roll], *, sums_only: bool) -> bytes:
    """What decides the analysis of a sequence of ``tiles + 1`` rolls: the totals of the
    rolls a turn can reach where only sums matter, else every roll's two dice unordered."""
    if sums_only:
        sums = [a + b for a, b in dice]
        return _SUMS + bytes(sums[: _reach(sums, len(dice) - 1)])
    return _PAIRS + _pairs(dice)


class Candidates:
    """Every key an in-play sequence that these dice could disguise may have: the totals
    and the unordered pairs of each prefix of ``MIN_ROLLS`` rolls or more (of all of
    shorter dice), whatever rules they are analysed under. Asked ``key in candidates``
    without making them all (the pairs only when a key of pairs is asked for)."""

    def __init__(self, dice: Sequence[Roll]) -> None:
        self.dice = dice
        self.totals = _SUMS + bytes(map(sum, dice))
        self.lengths = range(1 + min(MIN_ROLLS, len(dice)), 2 + len(dice))

    @cached_property
    def pairs(self) -> bytes:
        return _PAIRS + _pairs(self.dice)

    # The ``short_key`` of every candidate key is one of these two, whatever the dice's
    # length: a candidate is a prefix of the totals or of the pairs of at least
    # ``lengths.start`` bytes, and dice shorter than ``MIN_ROLLS`` have one length.
    def short_key_of_totals(self) -> int:
        return short_key(self.totals[: self.lengths.start])

    def short_key_of_pairs(self) -> int:
        return short_key(self.pairs[: self.lengths.start])

    def __iter__(self) -> Iterator[bytes]:
        for encoded in (self.totals, self.pairs):
            for length in self.lengths:
                yield encoded[:length]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, bytes) or len(key) not in self.lengths:
            return False
        return (self.pairs if key[:1] == _PAIRS else self.totals).startswith(key)


def _pairs(dice: Sequence[Roll]) -> bytes:
    return bytes(map(_PAIR_CODE.__getitem__, dice))


def stored_key(key: bytes) -> int:
    """A key as the boxes' index keeps it: a signed 64-bit number."""
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big", signed=True)


def short_key(key: bytes) -> int:
    """A key cut to its first ``MIN_ROLLS`` rolls, as a number: the dice a key is a
    candidate of have it as their ``Candidates.short_key_of_totals`` or
    ``short_key_of_pairs``. A process that holds the short keys of some boxes tells most
    dice apart from them with two of these, not a hash a candidate (a dozen). Exact, no
    hash: the type byte and at most seven bytes of rolls, each below 0x40, padded with
    0xff so that lengths differ."""
    return int.from_bytes(key[: 1 + MIN_ROLLS].ljust(8, b"\xff"), "big", signed=True)


def of_pairs(short: int) -> bool:
    """Whether a short key is one of pairs (else of totals): its first byte says."""
    return short >> 56 == _PAIRS[0]


def box_keys(dice: Sequence[Roll], rules: Rules) -> tuple[int, int]:
    """The stored key of a box of these dice under these rules, and its short key."""
    key = deciding_key(dice, sums_only=only_sums_matter(rules))
    return stored_key(key), short_key(key)


class Mark:
    """The mark of box dice under a secret: a keyed hash of the totals of their first
    ``MIN_ROLLS`` rolls ends in ``MARK_BITS`` zero bits, whatever the box's rules. Dice of
    fewer rolls count as marked: so few rolls have too few totals to mark one in 1,024
    of them (and their boxes, of five tiles or fewer, are few). Every disguise of some
    dice has their first totals, so one hash tells whether they may be a box's."""

    def __init__(self, secret: bytes) -> None:
        self._hash = hashlib.blake2b(digest_size=8, key=secret[:64], person=b"in-play")

    def carried_by(self, candidates: Candidates) -> bool:
        """Whether the dice carry the mark."""
        if len(candidates.totals) <= MIN_ROLLS:
            return True
        digest = self._hash.copy()
        digest.update(candidates.totals[: 1 + MIN_ROLLS])
        return int.from_bytes(digest.digest()[-2:], "big") & _MARK_MASK == 0

    def lookups(self, candidates: Candidates) -> list[int]:
        """The stored keys to look up for some dice: none for unmarked dice (no box's),
        else every candidate key."""
        return [stored_key(key) for key in candidates] if self.carried_by(candidates) else []
