"""Solved tables in PostgreSQL: each rules variant packed once, read by every process.

The packing, little-endian and zlib-compressed: the number of columns and the length
of each (``int64``), then the columns one after another: the final scores
(``int64``), each solved value in the order of ``value_names`` (``float64``), and the
optimal moves for each number of dice in the order of ``dice_counts`` (``int16``).
Doubles are stored as they are, so the tables rebuilt from a row are the solver's
tables bit for bit. ``ENCODING`` names the solver and the packing that made a row:
change either, and raise it.

The variants of the first five rules fields (``tiles``, ``one_die``, the first three move
rules, ``scoring``; ``start`` is no part of a solver key) have their rows in
``solver_tables``, keyed by those fields, as they always had; a variant that uses a newer
field or move rule has its row in ``solver_tables_of_rules``, keyed by its whole solver
key as canonical JSON. So the key and row of every earlier variant stay as they were.

What clients can make PostgreSQL hold is bounded. The earlier variants are a few hundred
at most (every combination of the five fields), each kept for good, and so are the newer
variants the rules sheets name (``SHEETS``). Any other newer variant (a client may ask
for thousands: each field combines with the others, and under ``first_must_close`` each
``start`` is a variant of its own) is kept only among the ``SHUTBOX_SOLVER_STORED`` used
most recently: each store lets the least recently used beyond them go (``store``), and a
read marks its row used at most once an hour (the query). A variant let go is solved
again when asked for, and stored again.
"""

from __future__ import annotations

import sys
import zlib
from array import array
from typing import Any, Final

import msgspec

from service.rules.ruleset import NEWER_FIELDS, Rules
from service.rules.solver import Tables, dice_counts, value_names
from service.store.db import QUERIES, Database

ENCODING: Final = 1
EARLIER_MOVE_RULES: Final = ("any", "dice_or_sum", "single")
"""The move rules ``solver_tables`` takes (its CHECK): those of the earlier variants."""
SHEETS: Final = (
    Rules(first_must_close=2),  # "2 to go"
    Rules(first_must_close=3),  # "3 to go"
    Rules(stop_on_total=7),  # "Unlucky 7"
    Rules(move_rule="die_or_sum"),  # "one die is enough"
    Rules(move_rule="die_or_sum_both"),  # the second die used whenever it fits
    Rules(total="sum_or_difference"),
    Rules(one_die="high_closed", one_die_choice="mandatory"),  # "may only throw one die"
    Rules(one_die="sum_le_6", one_die_choice="mandatory"),
)
"""The newer variants the rules sheets name (PRODUCT.md, "More variants from the rules
sheets"), each on the standard box: their tables stay stored for good. (The sheets'
boxes, "3 down extreme", "Against all odds", "Even Stevens" and "Full house", are
earlier variants, all of which stay.)"""


def _kinds(rules: Rules) -> str:
    """The array type of each column of a variant's packed tables."""
    return "q" + "d" * len(value_names(rules)) + "h" * len(dice_counts(rules))


def pack(tables: Tables) -> bytes:
    """The final scores, solved values and optimal moves of ``tables``, packed."""
    columns: list[array[int] | array[float]] = [array("q", tables.score)]
    columns += [array("d", values) for values in tables.values().values()]
    columns += [array("h", tables.optimal_moves[dice]) for dice in dice_counts(tables.rules)]
    header = array("q", [len(columns), *(len(column) for column in columns)])
    if sys.byteorder != "little":
        for column in (header, *columns):
            column.byteswap()
    return zlib.compress(b"".join(column.tobytes() for column in (header, *columns)))


def unpack(rules: Rules, packed: bytes) -> Tables:
    """The tables of ``rules`` rebuilt from their packed columns (ValueError, or
    zlib.error, if they are not the packing of this variant's tables)."""
    key = rules.solver_key
    names, counts = value_names(key), dice_counts(key)
    raw = zlib.decompress(packed)
    header, at = _column(raw, 0, "q", 1 + len(_kinds(key)))
    if header[0] != len(_kinds(key)):
        raise ValueError(f"packed tables do not fit {key}")
    lengths = iter(header[1:])
    score, at = _column(raw, at, "q", next(lengths))
    values: dict[str, array[float]] = {}
    for name in names:
        values[name], at = _column(raw, at, "d", next(lengths))
    moves: dict[int, array[int]] = {}
    for dice in counts:
        moves[dice], at = _column(raw, at, "h", next(lengths))
    if at != len(raw):
        raise ValueError(f"packed tables do not fit {key}")
    return Tables.from_values(key, score, values, moves)


def _column(raw: bytes, at: int, kind: str, length: int) -> tuple[array[Any], int]:
    """The column of ``length`` items of type ``kind`` at byte ``at``, and where it ends."""
    column = array(kind)
    end = at + column.itemsize * length
    if length < 0 or end > len(raw):
        raise ValueError("packed tables end before their columns do")
    column.frombytes(raw[at:end])
    if sys.byteorder != "little":
        column.byteswap()
    return column, end


def solve_packed(rules: dict[str, object]) -> bytes:
    """Solve a variant (given as plain data) and pack its tables: what a solver process
    runs. The tables are not kept: the process asking for them holds them."""
    return pack(Tables(msgspec.convert(rules, Rules).solver_key))


def _variant(rules: Rules) -> tuple[int, str, str, str, int]:
    key = rules.solver_key
    return key.tiles, key.one_die, key.move_rule, key.scoring, ENCODING


def rules_key(rules: Rules) -> str | None:
    """A newer variant's key in ``solver_tables_of_rules``: its solver key as canonical
    JSON (sorted keys, the newer fields only where they are not their defaults); None
    for an earlier variant, whose row is in ``solver_tables``."""
    stored_form = rules.solver_key.stored()
    if rules.move_rule in EARLIER_MOVE_RULES and not any(n in stored_form for n in NEWER_FIELDS):
        return None
    return msgspec.json.encode(stored_form, order="sorted").decode()


async def stored(database: Database, rules: Rules) -> bytes | None:
    """The packed tables of a variant, if any process stored them."""
    key = rules_key(rules)
    packed: bytes | None
    if key is None:
        packed = await database.fetchval(QUERIES.solver_tables_of_variant, *_variant(rules))
    else:
        packed = await database.fetchval(QUERIES.solver_tables_of_rules, key, ENCODING)
    return packed


SHEETS_KEYS: Final = [key for rules in SHEETS if (key := rules_key(rules)) is not None]
"""The keys in ``solver_tables_of_rules`` of the variants the rules sheets name."""


async def store(database: Database, rules: Rules, packed: bytes, *, kept: int) -> None:
    """Store a variant's packed tables (a row stored first stays). Of the newer variants
    the rules sheets do not name, the ``kept`` used most recently stay (this one among
    them), the others go."""
    key = rules_key(rules)
    if key is None:
        await database.execute(QUERIES.insert_solver_tables, *_variant(rules), packed)
        return
    await database.execute(QUERIES.insert_solver_tables_of_rules, key, ENCODING, packed)
    if key not in SHEETS_KEYS:
        await database.execute(QUERIES.evict_solver_tables_of_rules, SHEETS_KEYS, kept)
