"""How much randomness a bearer token a client made for itself shows."""

from __future__ import annotations

import math
import re
from typing import Final

BASE64URL: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# The orders a made-up token may run in: the base64url alphabet's and ASCII's.
_ORDERS: Final = tuple(
    {symbol: place for place, symbol in enumerate(order)}
    for order in (BASE64URL, "".join(sorted(BASE64URL)))
)
SYMBOL_BITS: Final = math.log2(len(BASE64URL))  # 6: a random symbol, and no more
MIN_TOKEN_BITS: Final = 128
_SAME: Final = re.compile(b"\x00+")


def token_bits(token: str) -> float:
    """Random bits in ``token`` (base64url text), estimated low, as the length of its
    shortest description in a small model (delta coding, then LZ77, as PNG's Sub filter
    before DEFLATE): the first symbol, then the step from each symbol to the one before
    it; or the first two, then the steps from each to the one two before (mod 64, in
    base64url or ASCII order; whichever is shortest). Each step is a literal, 6 bits,
    or part of a copy of the steps from some distance back (overlapping itself, as in
    LZ77), log2 of the places a copy can start from plus log2 of the lengths it can
    have. A run repeats step 0, a sequence step k, a repeated block its own steps, two
    sequences interleaved their steps two apart: a few literals and a copy. Telling
    literals from copies is not charged, so a token's randomness is at least this much
    in this model; a random symbol scores its 6 bits.

    >>> [round(token_bits(t)) for t in ("A" * 43, "ab" * 22, "0123456789" * 4 + "012")]
    [17, 23, 32]
    >>> round(token_bits("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"))
    17
    >>> round(token_bits("AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHHIIIIJJJJKKK"))
    31
    >>> round(token_bits("AZBYCXDWEVFUGTHSIRJQKPLOMNNMOLPKQJRISHTGUFV"))
    30
    >>> token_bits("SaS2mIAw3EnoF5T1m5dR0Ns_n8y3NsaZQzJ9TGrNTVk") > 240  # token_urlsafe(32)
    True
    """
    best = math.inf
    for order in _ORDERS:
        places = [order[symbol] for symbol in token]
        for lag in (1, 2):
            steps = [
                (later - earlier) % len(BASE64URL)
                for earlier, later in zip(places, places[lag:], strict=False)
            ]
            longest = _longest(bytes(steps))
            # shortest[i]: bits in the shortest description of the first i steps.
            shortest = [0.0] + [math.inf] * len(steps)
            for i, reach in enumerate(longest):
                shortest[i + 1] = min(shortest[i + 1], shortest[i] + SYMBOL_BITS)
                copy = shortest[i] + math.log2(i or 1) + math.log2(len(steps) - i)
                for end in range(i + 1, i + reach + 1):
                    shortest[end] = min(shortest[end], copy)
            best = min(best, min(lag, len(places)) * SYMBOL_BITS + shortest[-1])
    return best


def _longest(steps: bytes) -> list[int]:
    """For each step, the longest stretch of steps from it equal to one as long from
    some distance before it. Each distance's equal steps are found at once (the steps
    against themselves shifted, XORed as one number: a zero byte where they agree), and
    only those are visited: a made token's few, not every pair (8x faster for a token of
    43 symbols than a loop over the pairs, docs/performance.md)."""
    count = len(steps)
    longest = [0] * count
    whole = int.from_bytes(steps, "big")
    for distance in range(1, count):
        later = whole & ((1 << 8 * (count - distance)) - 1)  # steps[distance:]
        earlier = whole >> 8 * distance  # steps[: count - distance]
        agree = (later ^ earlier).to_bytes(count - distance, "big")
        for same in _SAME.finditer(agree):
            end = same.end() + distance
            for i in range(same.start() + distance, end):
                longest[i] = max(longest[i], end - i)
    return longest
