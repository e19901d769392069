"""Sections of answers made once per object the rules core keeps (``ShownOnce``)."""

from __future__ import annotations

from service.api.schemas import ShownOnce


class Kept:
    """An object as the core keeps them: equal to others, itself by identity."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kept)

    __hash__ = object.__hash__


def test_a_section_is_made_once_per_object_and_variant_within_its_bound() -> None:
    made: list[tuple[Kept, object]] = []

    def show(obj: Kept, variant: object) -> list[object]:
        made.append((obj, variant))
        return [variant]

    shown = ShownOnce(show, kept=3)
    first, second = Kept(), Kept()
    assert shown(first, "en") is shown(first, "en")
    assert shown(first, "de") == ["de"]
    assert shown(second, "en") is not shown(first, "en")  # equal objects are not the same
    assert len(made) == 3
    for _ in range(5):
        shown(Kept(), "en")  # others, shown since: the first's sections are made again
    shown(first, "en")
    assert len(made) == 9
    assert len(shown._shown) == 3
