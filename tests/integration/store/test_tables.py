"""Solved tables through PostgreSQL: packed, stored, read back, and the same bit for bit."""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from msgspec import to_builtins

from service.rules.analysis import report
from service.rules.computers import play_all
from service.rules.ruleset import ALL_ROLLS, Rules
from service.rules.solver import Tables, hint, solution
from service.store import tables as stored_tables
from service.store.db import migrate
from service.support.settings import Settings
from tests.runs import played

KEPT = Settings().solver_stored

VARIANTS = [
    Rules(),
    Rules(tiles=2),
    Rules(tiles=7, one_die="high_closed", move_rule="single", scoring="count"),
    Rules(tiles=10, one_die="sum_le_6", move_rule="dice_or_sum", scoring="digits"),
    Rules(tiles=12, one_die="sum_le_6", move_rule="single", scoring="digits"),
]


def bits(values: Any) -> bytes:
    """Floats as their exact bits (``==`` would take -0.0 for 0.0)."""
    return struct.pack(f"<{len(values)}d", *values)


def assert_same_tables(loaded: Tables, fresh: Tables) -> None:
    assert loaded.rules == fresh.rules
    assert list(loaded.score) == list(fresh.score)
    assert loaded.values().keys() == fresh.values().keys()
    for name, values in fresh.values().items():
        assert bits(loaded.values()[name]) == bits(values), name
    assert loaded.classes == fresh.classes and loaded.class_of == fresh.class_of
    assert loaded.dice_choices == fresh.dice_choices
    for dice in fresh.classes:
        assert list(loaded.optimal_moves[dice]) == list(fresh.optimal_moves[dice])
        for s in range(1, 1 << fresh.rules.tiles):
            assert loaded.children[dice][s] == fresh.children[dice][s]


@pytest.fixture
async def database(database_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(database_url)
    try:
        await migrate(connection)
        yield connection
    finally:
        await connection.close()


@pytest.mark.parametrize("rules", VARIANTS, ids=str)
async def test_tables_from_postgresql_are_a_fresh_solve_bit_for_bit(
    database: asyncpg.Connection, rules: Rules
) -> None:
    await database.execute(
        "DELETE FROM solver_tables WHERE tiles = $1 AND one_die = $2 AND move_rule = $3 "
        "AND scoring = $4",
        rules.tiles, rules.one_die, rules.move_rule, rules.scoring,
    )  # fmt: skip
    await stored_tables.store(
        database, rules, stored_tables.solve_packed(to_builtins(rules)), kept=KEPT
    )
    packed = await stored_tables.stored(database, rules)
    assert packed is not None
    loaded, fresh = stored_tables.unpack(rules, packed), Tables(rules)
    assert_same_tables(loaded, fresh)
    # And what the rules core answers from them, on a few positions and rolls.
    start = rules.start_position
    assert bits(loaded.distribution(start).values()) == bits(fresh.distribution(start).values())
    assert loaded.distribution(start).keys() == fresh.distribution(start).keys()
    for s in (start, start >> 1, start & 0b10110):
        if s:
            assert loaded.distribution(s) == fresh.distribution(s)
            for roll in ((3, 4), (1, 1), (6, 5)):
                assert loaded.options(s, roll, 2) == fresh.options(s, roll, 2)
            assert loaded.best_dice(s) == fresh.best_dice(s)
            assert loaded.hint_dice(s) == fresh.hint_dice(s)
    dice = tuple((1 + i % 6, 1 + (i * 5) % 6) for i in range(rules.rolls))
    assert play_all(loaded, rules, dice, "x") == play_all(fresh, rules, dice, "x")


def test_a_second_copy_answers_as_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """``solution``, ``hint`` and ``report`` on tables rebuilt from their packing."""
    from service.rules import solver

    rules = Rules(tiles=8, one_die="sum_le_6", scoring="digits")
    fresh = Tables(rules)
    dice = ((4, 4), (3, 4), (2, 3), (1, 2), (6, 6), (1, 1), (2, 1), (1, 3), (5, 1))
    moves = played(dice, rules)  # two dice and the first legal set of each roll
    monkeypatch.setattr(solver, "LOADED", solver.Loaded(limit=4))
    solver.LOADED.keep(fresh)
    expected = (solution(rules), hint(rules, rules.full, (3, 4)), report(rules, dice, moves, "s"))
    solver.LOADED.clear()
    solver.LOADED.keep(stored_tables.unpack(rules, stored_tables.pack(fresh)))
    got = (solution(rules), hint(rules, rules.full, (3, 4)), report(rules, dice, moves, "s"))
    assert got == expected


@pytest.mark.parametrize("rules", VARIANTS[1:4], ids=str)
def test_the_optimum_read_from_its_table_is_the_one_its_kids_give(rules: Rules) -> None:
    """``best_kid`` reads ``optimal_moves``, solved only where that many dice may be
    rolled: everywhere it answers as ``optimal_kid`` of the kids, on fresh tables and on
    tables rebuilt from their packing."""
    fresh = Tables(rules)
    for tables in (fresh, stored_tables.unpack(rules, stored_tables.pack(fresh))):
        for s in range(1 << rules.tiles):
            for dice in tables.classes:
                for roll in ALL_ROLLS:
                    kids = tables.kids(s, roll, dice)
                    expected = tables.optimal_kid(kids) if kids else None
                    assert tables.best_kid(s, roll, dice) == expected, (s, roll, dice)


def test_packed_tables_of_another_variant_are_refused() -> None:
    packed = stored_tables.pack(Tables(Rules(tiles=5)))
    with pytest.raises(ValueError, match="do not fit"):
        stored_tables.unpack(Rules(tiles=5, one_die="high_closed"), packed)
    with pytest.raises(ValueError):
        stored_tables.unpack(Rules(tiles=6), packed)


NEWER = [
    Rules(first_must_close=3, start=(1, 2, 3, 4, 5, 6), move_rule="die_or_sum_both"),
    Rules(
        tiles=7, total="sum_or_difference", one_die="sum_le_6", one_die_choice="mandatory",
        stop_on_total=7,
    ),
]  # fmt: skip


@pytest.mark.parametrize("rules", NEWER, ids=str)
async def test_newer_variants_are_stored_by_their_rules_bit_for_bit(
    database: asyncpg.Connection, rules: Rules
) -> None:
    key = stored_tables.rules_key(rules)
    assert key is not None
    await database.execute("DELETE FROM solver_tables_of_rules WHERE rules = $1", key)
    assert await stored_tables.stored(database, rules) is None
    await stored_tables.store(
        database, rules, stored_tables.solve_packed(to_builtins(rules)), kept=KEPT
    )
    packed = await stored_tables.stored(database, rules)
    assert packed is not None
    assert_same_tables(stored_tables.unpack(rules, packed), Tables(rules))
    rows = await database.fetchval(
        "SELECT count(*) FROM solver_tables_of_rules WHERE rules = $1", key
    )
    assert rows == 1


def test_the_earlier_variants_keep_their_rows_and_keys() -> None:
    """Every variant of the first five fields is keyed in ``solver_tables`` as before the
    newer fields existed; a newer one by its whole solver key, start included only where
    first_must_close makes the start special."""
    for rules in (*VARIANTS, Rules(start=(4, 5, 6)), Rules(one_die_choice="optional")):
        assert stored_tables.rules_key(rules) is None
    assert stored_tables.rules_key(Rules(move_rule="die_or_sum", start=(4, 5))) == (
        '{"move_rule":"die_or_sum","one_die":"never","scoring":"sum","start":null,"tiles":9}'
    )
    assert stored_tables.rules_key(Rules(first_must_close=4, start=(6, 4))) == (
        '{"first_must_close":4,"move_rule":"any","one_die":"never","scoring":"sum",'
        '"start":[4,6],"tiles":9}'
    )
    assert stored_tables.rules_key(Rules(first_must_close=4, start=(6, 4))) != (
        stored_tables.rules_key(Rules(first_must_close=4))
    )
