"""Places on a board: 1 + how many did better, so that ties share a place (1, 1, 3).

The one rule for every board that shows places: the friends' board of a date, a Friend
Box's results (a page at a time) and a series' standings (whose keys are more than a score).
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


def page_places(page: Sequence[K], before: int, lower: int) -> list[int]:
    """The places of one page of a board, its keys in order, as ``places`` gives them on the whole.

    ``before`` keys came on the pages before it (none higher than its first key), ``lower`` of
    them strictly lower than its first key: a key equal to the first shares its place, and any
    other is placed after every key before the page and the page's lower keys.
    """
    if not page:
        return []
    first = page[0]
    return [lower + 1 if not first < key else before + bisect_left(page, key) + 1 for key in page]
