"""Friend Box and transfer codes: the check symbol catches every single typo and
adjacent swap, proven exhaustively over the alphabet for both lengths."""

from __future__ import annotations

import re

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.support.codes import (
    ALPHABET,
    LENGTH,
    TRANSFER_DATA_SYMBOLS,
    TRANSFER_LENGTH,
    WEIGHTS,
    MalformedCode,
    MistypedCode,
    display,
    is_valid,
    new_code,
    normalise,
    parse,
    text_pattern,
    text_schema,
    with_check,
)


def test_fresh_codes_are_valid_and_random() -> None:
    codes = {new_code() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == LENGTH and is_valid(c) and set(c) <= set(ALPHABET) for c in codes)


def test_fresh_transfer_codes_are_valid_and_random() -> None:
    codes = {new_code(TRANSFER_DATA_SYMBOLS) for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == TRANSFER_LENGTH and is_valid(c, TRANSFER_LENGTH) for c in codes)
    assert not any(is_valid(c) for c in codes)  # a transfer code is never a box code


LENGTHS = pytest.mark.parametrize("length", [LENGTH, TRANSFER_LENGTH])


@LENGTHS
def test_every_single_symbol_typo_is_caught_at_every_position(length: int) -> None:
    # For every position and every pair (right symbol, typed symbol): the sum changes.
    for data in ("0" * (length - 1), "Z" * (length - 1), new_code(length - 1)[:-1]):
        code = with_check(data)
        for position in range(length):
            for typed in ALPHABET:
                if typed != code[position]:
                    wrong = code[:position] + typed + code[position + 1 :]
                    assert not is_valid(wrong, length), (code, position, typed)


@LENGTHS
def test_every_adjacent_swap_of_different_symbols_is_caught(length: int) -> None:
    # Exhaustive over the alphabet: for each neighbouring pair of positions, the check
    # symbol included, every ordered pair of different symbols (x, y) is made to stand
    # there in a valid code, then swapped.
    for position in range(length - 1):
        for x in ALPHABET:
            for y in ALPHABET:
                if x == y:
                    continue
                code = code_with(length, position, x, y)
                assert is_valid(code, length) and code[position : position + 2] == x + y
                swapped = code[:position] + y + x + code[position + 2 :]
                assert not is_valid(swapped, length), (code, position)


def code_with(length: int, position: int, x: str, y: str) -> str:
    """A valid code with ``x, y`` at ``position, position + 1``."""
    if position + 1 < length - 1:  # both in the data: any filler works
        data = "1" * position + x + y + "1" * (length - 3 - position)
        return with_check(data)
    # ``y`` is the check symbol: search the first data symbol that makes it so.
    for first in ALPHABET:
        data = first + "1" * (length - 3) + x
        code = with_check(data)
        if code[-1] == y:
            return code
    raise AssertionError("every check value is reachable through the first symbol")


def test_weights_are_distinct_and_nonzero() -> None:
    assert len(set(WEIGHTS)) == len(WEIGHTS) == 31 and 0 not in WEIGHTS


@pytest.mark.parametrize(
    "typed",
    ["7m3q-k2zd2", "7M3Q K2ZD2", " 7m3qk2zd2 ", "7M3Q--K2ZD2"],
)
def test_codes_are_read_loosely(typed: str) -> None:
    assert parse(typed) == "7M3QK2ZD2"


def test_o_i_and_l_are_read_as_digits() -> None:
    code = with_check("10011001")
    assert parse(code.replace("0", "O").replace("1", "I", 2).replace("1", "l")) == code
    assert normalise("oil-OIL") == "011011"


def test_malformed_and_mistyped() -> None:
    with pytest.raises(MalformedCode):
        parse("7M3Q-K2ZD")
    with pytest.raises(MalformedCode):
        parse("7M3Q-K2ZDU")  # U is not in the alphabet
    with pytest.raises(MistypedCode):
        parse("7M3Q-K2ZD3")


def test_display() -> None:
    assert display("7M3QK2ZD2") == "7M3Q-K2ZD2"
    assert display("7M3QK2ZDPX4T9") == "7M3Q-K2ZD-PX4T9"


def test_transfer_codes_are_read_loosely_and_checked() -> None:
    code = with_check("7M3QK2ZDPX4T")
    assert parse(display(code).lower(), TRANSFER_LENGTH, "transfer code") == code
    with pytest.raises(MistypedCode, match="transfer code"):
        parse(code[:-1] + ("0" if code[-1] != "0" else "1"), TRANSFER_LENGTH, "transfer code")
    with pytest.raises(MalformedCode):
        parse(code, LENGTH)  # a transfer code is not a box code
    with pytest.raises(MalformedCode):
        parse("7" * 10_000, TRANSFER_LENGTH)


def test_only_ascii_is_read() -> None:
    # Their upper case is an ASCII letter (I, S): still no symbol of a code.
    with pytest.raises(MalformedCode):
        parse("7M3Q-K2ZD\u0131")
    with pytest.raises(MalformedCode):
        parse("\u017f" + with_check("SM3QK2ZD")[1:])


# The OpenAPI document's schema of a code, as a JSON Schema validator (ECMA-262) reads it.
DOCUMENTED = {
    length: jsonschema_rs.validator_for({"type": "string", **text_schema(length)})
    for length in (LENGTH, TRANSFER_LENGTH)
}


def malformed(text: str, length: int) -> bool:
    try:
        parse(text, length)
    except MalformedCode:
        return True
    except MistypedCode:
        return False
    return False


# Text near a code: its symbols, the letters read as one, the separators, and what is not.
NEAR_A_CODE = st.text(st.sampled_from([*ALPHABET, *"oilOILuU -_.\n\t", "\u0131", "\u017f"]))


@LENGTHS
@given(data=st.data())
def test_the_documented_schema_is_what_is_read_as_a_code(length: int, data: st.DataObject) -> None:
    # The OpenAPI document's pattern and lengths take exactly the text that parse reads
    # as a code (its check symbol aside): schema-valid text is never "not a code".
    typed = st.from_regex(re.compile(text_pattern(length)), fullmatch=True)
    text = data.draw(st.one_of(typed, NEAR_A_CODE, st.text(max_size=60)))
    assert DOCUMENTED[length].is_valid(text) == (not malformed(text, length)), text


def test_spaces_and_hyphens_up_to_three_in_a_row() -> None:
    code = with_check("7M3QK2ZD")
    assert parse(f" - {code[:4]} - {code[4:]}- ") == code
    with pytest.raises(MalformedCode):
        parse(f"{code[:4]}----{code[4:]}")
