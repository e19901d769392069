"""Codes that people type on phones: Friend Box codes, friend codes (made and read as
box codes are) and account transfer codes.

Crockford's base32 alphabet (``0-9 A-Z`` without I, L, O, U). A box code is 8
symbols (40 random bits) and a check symbol from the same alphabet, shown as
``XXXX-XXXXX``; a transfer code is 12 symbols (60 random bits) and a check symbol,
shown as ``XXXX-XXXX-XXXXX``. Codes are read case-insensitively, ignoring spaces
and hyphens (up to three in a row), with O read as 0 and I or L as 1: ``text_pattern``,
which the OpenAPI document gives as it is.

The check: symbols are elements of GF(32) (polynomial x^5 + x^2 + 1), and a code is
valid when ``sum(w[i] * s[i]) == 0`` with the distinct nonzero weights
``w[i] = a^i`` (``a`` a primitive element), the check symbol included. Since the
field has no zero divisors:

- a single wrong symbol ``s[i] + e`` (``e != 0``) changes the sum by ``w[i] * e != 0``;
- swapping different neighbours ``x != y`` changes it by ``(w[i] + w[i+1]) * (x + y)``,
  and both factors are nonzero because the weights are distinct.

So every single mistyped symbol and every swap of two adjacent different symbols
is caught, in a code of any length up to 31 symbols (the tests check it
exhaustively over the alphabet).

>>> code = with_check("7M3QK2ZD")
>>> display(code), parse("7m3q k2zd" + code[-1].lower()) == code
('7M3Q-K2ZD2', True)
"""

from __future__ import annotations

import re
import secrets
from typing import Final

from service.caching import cached
from service.support.i18n import N_, _

ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
DATA_SYMBOLS: Final = 8
LENGTH: Final = DATA_SYMBOLS + 1
TRANSFER_DATA_SYMBOLS: Final = 12
TRANSFER_LENGTH: Final = TRANSFER_DATA_SYMBOLS + 1
SEPARATORS_MOST: Final = 3
"""Spaces and hyphens in a row that a typed code may hold (``7M3Q - K2ZD2``)."""
BOX_CODE: Final = N_("box code")
TRANSFER_CODE: Final = N_("transfer code")
FRIEND_CODE: Final = N_("friend code")
_VALUE: Final = {symbol: value for value, symbol in enumerate(ALPHABET)}
_READ_AS: Final = {"O": "0", "I": "1", "L": "1"}
_POLY: Final = 0b100101  # x^5 + x^2 + 1, primitive over GF(2)


def _tables() -> tuple[list[int], list[int]]:
    exp, log = [0] * 62, [0] * 32
    value = 1
    for power in range(31):
        exp[power] = exp[power + 31] = value
        log[value] = power
        value <<= 1
        if value & 0b100000:
            value ^= _POLY
    return exp, log


_EXP, _LOG = _tables()
WEIGHTS: Final = tuple(_EXP[i] for i in range(31))  # distinct: codes of up to 31 symbols


def _times(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return _EXP[_LOG[a] + _LOG[b]]


def _syndrome(values: list[int]) -> int:
    total = 0
    for weight, value in zip(WEIGHTS, values):
        total ^= _times(weight, value)  # addition in GF(32) is XOR
    return total


class MalformedCode(ValueError):
    """Not a code at all: wrong length or a symbol outside the alphabet."""


class MistypedCode(ValueError):
    """A code whose check symbol fails: some symbol was mistyped."""


def with_check(data: str) -> str:
    """The code for these data symbols: they and their check symbol."""
    values = [_VALUE[s] for s in data]
    partial = _syndrome([*values, 0])
    # Solve w[n] * c = partial (so that the whole sum is 0): c = partial / w[n].
    check = 0 if partial == 0 else _EXP[(_LOG[partial] - _LOG[WEIGHTS[len(data)]]) % 31]
    return data + ALPHABET[check]


def new_code(data_symbols: int = DATA_SYMBOLS) -> str:
    """A fresh random code: 5 random bits a data symbol, and the check symbol."""
    bits = secrets.randbits(5 * data_symbols)
    data = "".join(ALPHABET[(bits >> (5 * i)) & 31] for i in range(data_symbols))
    return with_check(data)


def normalise(text: str) -> str:
    """Upper case, spaces and hyphens dropped, O read as 0 and I or L as 1."""
    kept = text.upper().replace(" ", "").replace("-", "")
    return "".join(_READ_AS.get(c, c) for c in kept)


def longest(length: int = LENGTH) -> int:
    """The most characters a code of ``length`` symbols is read from: up to
    ``SEPARATORS_MOST`` spaces and hyphens before, between and after its symbols."""
    return length + SEPARATORS_MOST * (length + 1)


def text_schema(length: int = LENGTH) -> dict[str, object]:
    """The JSON Schema of the text ``parse`` reads as a code of ``length`` symbols (its
    check symbol aside), for the OpenAPI document: ``text_pattern`` and its lengths."""
    return {"minLength": length, "maxLength": longest(length), "pattern": text_pattern(length)}


def text_pattern(length: int = LENGTH) -> str:
    """The text read as a code of ``length`` symbols: the alphabet's symbols and those
    read as one (``_READ_AS``), in either case, with runs of up to ``SEPARATORS_MOST``
    spaces and hyphens around them (an ECMA-262 regular expression, as JSON Schema
    takes it, that Python reads alike)."""
    read = sorted({*ALPHABET, *_READ_AS})
    symbols = _ranges(read) + _ranges([c.lower() for c in read if c.isalpha()])
    gap = f"[ -]{{0,{SEPARATORS_MOST}}}"
    return f"^{gap}(?:[{symbols}]{gap}){{{length}}}$"


@cached("code_readers", bound=4)  # a box (friend, series) code's, a transfer code's
def _reader(length: int) -> re.Pattern[str]:
    return re.compile(text_pattern(length))


def _ranges(characters: list[str]) -> str:
    """Sorted characters as a regular expression's class writes them: ``0-9A-TV-Z``."""
    runs: list[list[str]] = []
    for c in characters:
        if runs and ord(c) == ord(runs[-1][-1]) + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return "".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def is_valid(code: str, length: int = LENGTH) -> bool:
    return (
        len(code) == length
        and all(c in _VALUE for c in code)
        and _syndrome([_VALUE[c] for c in code]) == 0
    )


def parse(text: str, length: int = LENGTH, what: str = BOX_CODE) -> str:
    """The canonical code typed as ``text``; ``MalformedCode`` or ``MistypedCode`` if not
    (their message in the request's language)."""
    # Anything longer is refused before the pattern reads it (its cost stays bounded).
    if len(text) > longest(length) or not _reader(length).fullmatch(text):
        raise MalformedCode(
            _(
                "A {what} has {length} symbols (letters and digits, shown as {shape}).",
                what=_(what),
                length=length,
                shape=display("X" * length),
            )
        )
    code = normalise(text)
    if not is_valid(code, length):
        raise MistypedCode(
            _(
                "This {what} was mistyped: one of its symbols is wrong. Check it and try again.",
                what=_(what),
            )
        )
    return code


def display(code: str) -> str:
    """Groups of four symbols, the last group taking the check symbol:
    ``XXXX-XXXXX``, ``XXXX-XXXX-XXXXX``."""
    groups = [code[i : i + 4] for i in range(0, len(code) - 1, 4)]
    groups[-1] += code[len(groups) * 4 :]
    return "-".join(groups)
