"""The randomness estimate of a client's own token: random bytes always pass, a few
random symbols stretched by a pattern never do."""

from __future__ import annotations

import base64
import random
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.support.tokens import BASE64URL, MIN_TOKEN_BITS, SYMBOL_BITS, _longest, token_bits
from service.usecases.players import WeakToken, checked_token


def urlsafe(data: bytes) -> str:
    """What ``secrets.token_urlsafe`` makes of these bytes."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@settings(max_examples=500, deadline=None)
@given(st.randoms(use_true_random=True), st.integers(min_value=32, max_value=96))
def test_random_bytes_always_pass(source: random.Random, size: int) -> None:
    # True randomness, not hypothesis's own choice of bytes: it favours zeros and
    # repeats, which 32 random bytes show with a chance of about 2**-200.
    token = urlsafe(source.randbytes(size))
    assert token_bits(token) >= MIN_TOKEN_BITS + 100
    assert checked_token(token) == token


def test_the_services_own_kind_of_token_passes() -> None:
    for _ in range(200):
        token = secrets.token_urlsafe(32)
        assert token_bits(token) >= MIN_TOKEN_BITS + 100, token


def stretch(prefix: str, pattern: str, step: int, length: int) -> str:
    """``prefix`` made ``length`` long by a pattern: repeated, or followed by a run or
    a sequence of ``step`` (mod 64 in base64url order) from its last symbol."""
    if pattern == "repeat":
        return (prefix * length)[:length]
    start = BASE64URL.index(prefix[-1])
    tail = (BASE64URL[(start + step * k) % 64] for k in range(1, length - len(prefix) + 1))
    return prefix + "".join(tail)


@given(
    st.text(BASE64URL, min_size=1, max_size=16),
    st.sampled_from(["repeat", "sequence"]),
    st.integers(min_value=-5, max_value=5),
    st.integers(min_value=43, max_value=128),
)
def test_16_symbols_stretched_by_a_pattern_are_refused(
    prefix: str, pattern: str, step: int, length: int
) -> None:
    # 16 symbols are 96 bits at best; a pattern adds a literal and a copy.
    token = stretch(prefix, pattern, step, length)
    assert token_bits(token) < MIN_TOKEN_BITS
    with pytest.raises(WeakToken):
        checked_token(token)


@given(st.text(BASE64URL, max_size=128))
def test_no_token_scores_more_than_6_bits_a_symbol(token: str) -> None:
    assert 0 <= token_bits(token) <= SYMBOL_BITS * len(token)


def longest_by_pairs(steps: bytes) -> list[int]:
    """``_longest`` by its definition, pair by pair: for each step, the longest stretch
    from it equal to one from some distance before it."""
    return [
        max(
            (
                next(
                    (k for k in range(len(steps) - i) if steps[i + k] != steps[i - d + k]),
                    len(steps) - i,
                )
                for d in range(1, i + 1)
            ),
            default=0,
        )
        for i in range(len(steps))
    ]


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=130).map(lambda data: bytes(b % 8 for b in data)) | st.binary(max_size=130)
)
def test_the_stretches_found_at_once_are_those_of_every_pair(steps: bytes) -> None:
    assert _longest(steps) == longest_by_pairs(steps)
