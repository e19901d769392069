"""Places on a board: 1 + how many did better, so that ties share a place (1, 1, 3).

The one rule for every board that shows places: the friends' board of a date, a Friend
Box's results and a series' standings (whose keys are more than a score).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar


class _Ordered(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Ordered)


def places(keys: Sequence[K]) -> list[int]:
    """Each key's place among ``keys``, lower keys first: 1 + the keys strictly lower."""
    ordered = sorted(keys)
    return [bisect_left(ordered, key) + 1 for key in keys]
