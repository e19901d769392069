"""Fair play in the rules core: the key that recognises a live challenge's dice in any
disguise, and the mark of box dice."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from service.rules import fairplay
from service.rules.dice import derive_box_dice, derive_dice
from service.rules.ruleset import Roll, Rules
from tests.unit.rules.strategies import rolls

SECRET = b"golden-vector-secret"
sequences = st.integers(2, 12).flatmap(
    lambda tiles: st.lists(rolls, min_size=tiles + 1, max_size=tiles + 1)
)


def test_golden_box_vectors() -> None:
    """The marked draw of a box pins ``hmac-sha256-marked-v1``."""
    assert derive_box_dice(SECRET, "box/ABCD12345", Rules()) == (
        (4, 6), (3, 6), (4, 2), (6, 4), (6, 1), (1, 5), (3, 2), (2, 5), (1, 5), (3, 4),
    )  # fmt: skip
    assert derive_box_dice(SECRET, "box/ABCD12345", Rules(tiles=12, move_rule="single")) == (
        (4, 6), (3, 6), (4, 2), (6, 4), (6, 1), (1, 5), (3, 2), (2, 5), (1, 5), (3, 4), (2, 1),
        (6, 2), (2, 1),
    )  # fmt: skip


def test_only_sums_matter_under_the_standard_move_rule_and_two_dice() -> None:
    assert fairplay.only_sums_matter(Rules())
    assert fairplay.only_sums_matter(Rules(tiles=12, start=(4, 5, 6), scoring="digits"))
    assert not fairplay.only_sums_matter(Rules(one_die="high_closed"))
    assert not fairplay.only_sums_matter(Rules(move_rule="dice_or_sum"))
    assert not fairplay.only_sums_matter(Rules(move_rule="single"))


def test_only_sums_matter_is_false_wherever_a_roll_is_more_than_its_total() -> None:
    # Its difference, or its dice: the legal sets depend on more than the total.
    assert not fairplay.only_sums_matter(Rules(total="sum_or_difference"))
    assert not fairplay.only_sums_matter(Rules(move_rule="die_or_sum"))
    assert not fairplay.only_sums_matter(Rules(move_rule="die_or_sum_both"))
    assert not fairplay.only_sums_matter(Rules(one_die="sum_le_6", one_die_choice="mandatory"))
    # A stop on a total, a tile to close first, one die never allowed: totals still decide.
    assert fairplay.only_sums_matter(Rules(stop_on_total=7, first_must_close=3))
    assert fairplay.only_sums_matter(Rules(one_die_choice="mandatory"))


@given(sequences, st.data())
def test_rolls_of_the_same_totals_play_alike_where_only_sums_matter(
    dice: list[Roll], data: st.DataObject
) -> None:
    """What the key promises: where ``only_sums_matter``, a roll replaced by another of
    the same total allows the same sets in every position (stop and first tile too)."""
    tiles = len(dice) - 1
    rules = Rules(
        tiles=tiles,
        stop_on_total=data.draw(st.none() | st.integers(2, 12)),
        first_must_close=data.draw(st.none() | st.integers(1, tiles)),
    )
    assert fairplay.only_sums_matter(rules)
    position = data.draw(st.integers(1, rules.full))
    for a, b in dice:
        other = data.draw(st.sampled_from(_same_total(a + b)))
        assert rules.legal_sets(position, (a, b), 2) == rules.legal_sets(position, other, 2)


@given(sequences, st.booleans(), st.data())
def test_every_disguise_has_the_same_key(
    dice: list[Roll], sums_only: bool, data: st.DataObject
) -> None:
    """Rolls written the other way round, a roll replaced by another of the same total
    (where only sums matter), rolls after those a turn can reach, and more rolls on the
    same first ones: each is refused by one of its candidate keys."""
    key = fairplay.deciding_key(dice, sums_only=sums_only)
    assert key in set(fairplay.Candidates(dice))
    swapped = [(b, a) for a, b in dice]
    assert key in set(fairplay.Candidates(swapped))
    if sums_only:
        same_totals = [data.draw(st.sampled_from(_same_total(a + b))) for a, b in dice]
        assert key in set(fairplay.Candidates(same_totals))
    reached = len(key) - 1
    later = dice[:reached] + [data.draw(rolls) for _ in dice[reached:]]
    assert key in set(fairplay.Candidates(later))
    if len(dice) >= fairplay.MIN_ROLLS:
        longer = later + data.draw(st.lists(rolls, max_size=13 - len(dice)))
        assert key in set(fairplay.Candidates(longer))


def _same_total(total: int) -> list[Roll]:
    return [(a, total - a) for a in range(1, 7) if 1 <= total - a <= 6]


@given(sequences)
def test_the_rolls_a_turn_can_reach_decide(dice: list[Roll]) -> None:
    """A sums key spans the rolls up to the one that brings the totals to the box's
    tiles: no turn plays a later roll, each played roll closing tiles of its total."""
    key = fairplay.deciding_key(dice, sums_only=True)
    reached = len(key) - 1
    tiles = len(dice) - 1
    totals = [a + b for a, b in dice]
    assert reached == len(dice) or sum(totals[:reached]) >= tiles * (tiles + 1) // 2
    assert reached >= min(fairplay.MIN_ROLLS, len(dice))
    if reached > fairplay.MIN_ROLLS:
        assert sum(totals[: reached - 1]) < tiles * (tiles + 1) // 2


def test_other_reached_rolls_have_other_keys() -> None:
    daily = derive_dice(SECRET, "daily/2026-11-29", 10)
    key = fairplay.deciding_key(daily, sums_only=True)
    for index in range(len(key) - 1):
        changed = list(daily)
        a, b = changed[index]
        changed[index] = (a % 6 + 1, b)  # another total
        assert key not in set(fairplay.Candidates(changed))


def test_a_small_box_never_refuses_longer_dice() -> None:
    """Dice of a few rolls (a small box) have keys of their own length: they never
    stand for the first rolls of every longer sequence."""
    small = [(6, 6), (6, 6), (6, 6)]
    for sums_only in (True, False):
        key = fairplay.deciding_key(small, sums_only=sums_only)
        assert key not in set(fairplay.Candidates(small + [(1, 1)] * 7))


def test_box_dice_are_marked_and_one_dice_in_1024_is() -> None:
    mark = fairplay.Mark(SECRET)
    for n in range(20):
        rules = Rules(tiles=2 + n % 11, move_rule="single" if n % 2 else "any")
        dice = derive_box_dice(SECRET, f"box/{n}", rules)
        key = fairplay.deciding_key(dice, sums_only=fairplay.only_sums_matter(rules))
        assert mark.carried_by(fairplay.Candidates(dice))
        assert fairplay.stored_key(key) in mark.lookups(fairplay.Candidates(dice))
    drawn = Counter(
        mark.carried_by(fairplay.Candidates(derive_dice(SECRET, f"x/{n}", 10)))
        for n in range(100_000)
    )
    assert 50 < drawn[True] < 160  # about 100000 / 1024


@given(sequences, sequences, st.booleans())
def test_a_key_is_a_candidate_exactly_when_it_is_made(
    dice: list[Roll], other: list[Roll], sums_only: bool
) -> None:
    """Asking for a key finds it exactly when making every candidate key would."""
    for key in (
        fairplay.deciding_key(dice, sums_only=sums_only),
        fairplay.deciding_key(other, sums_only=sums_only),
    ):
        assert (key in fairplay.Candidates(dice)) == (key in set(fairplay.Candidates(dice)))


@given(sequences, st.data())
def test_every_disguise_carries_the_mark_of_the_dice(dice: list[Roll], data: st.DataObject) -> None:
    """The mark is the first totals': dice and every disguise of theirs are looked up
    alike, and marked dice are looked up under every candidate key."""
    mark = fairplay.Mark(SECRET)
    candidates = fairplay.Candidates(dice)
    disguised = [data.draw(st.sampled_from(_same_total(a + b))) for a, b in dice]
    assert mark.carried_by(candidates) == mark.carried_by(fairplay.Candidates(disguised))
    looked_up = mark.lookups(candidates)
    assert looked_up == (
        [fairplay.stored_key(k) for k in candidates] if mark.carried_by(candidates) else []
    )


@given(st.lists(rolls, min_size=1, max_size=14), st.booleans(), st.integers(0, 13))
def test_every_candidate_key_has_its_short_key_among_the_dices(
    dice: list[Roll], sums_only: bool, cut: int
) -> None:
    """What lets a process holding boxes' short keys skip the whole check: a box whose
    key these dice could disguise (its key a candidate of theirs) has a short key among
    the two the dice give, whatever their length."""
    candidates = fairplay.Candidates(dice)
    short = (candidates.short_key_of_totals(), candidates.short_key_of_pairs())
    for key in candidates:
        assert fairplay.short_key(key) in short
    # A box's own dice, or a prefix of them long enough to be a candidate: found so.
    box = dice[: max(cut, 1)]
    key = fairplay.deciding_key(box, sums_only=sums_only)
    if key in candidates:
        assert fairplay.short_key(key) in short
