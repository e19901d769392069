"""Marks the sentences of the rules core that a player reads, so that ``pybabel extract``
puts them in the catalogs; the edges translate them (``service.support.i18n``). The core itself
stays in English and imports nothing to do so."""

from __future__ import annotations


def N_(message: str, /) -> str:
    return message
