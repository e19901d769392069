"""Sections of answers made once per object the rules core keeps (``IdentityMemo``)."""

from __future__ import annotations

from service.caching import IdentityMemo


class Kept:
    """An object as the core keeps them: equal to others, itself by identity."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kept)

    __hash__ = object.__hash__


def test_a_section_is_made_once_per_object_and_variant_within_its_bound() -> None:
    made: list[tuple[Kept, object]] = []

    def show(obj: Kept, variant: str) -> list[object]:
        made.append((obj, variant))
        return [variant]

    shown = IdentityMemo("test_sections", 3, show)
    first, second = Kept(), Kept()
    assert shown(first, "en") is shown(first, "en")
    assert shown(first, "de") == ["de"]
    assert shown(second, "en") is not shown(first, "en")  # equal objects are not the same
    assert len(made) == 3
    for _ in range(5):
        shown(Kept(), "en")  # others, shown since: the first's sections are made again
    shown(first, "en")
    assert len(made) == 9
    assert len(shown) == 3


def test_an_object_shown_is_kept_alive_so_its_id_is_never_another_s() -> None:
    """While a section is kept, its object is too: a new object never takes its id and
    is never handed the section of the one before."""
    shown = IdentityMemo("test_sections", 8, lambda obj, _: [id(obj)])
    sections = [shown(Kept(), None) for _ in range(8)]  # each object dropped at once
    assert len({section[0] for section in sections}) == 8
