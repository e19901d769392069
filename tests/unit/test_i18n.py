"""The catalogs: every message of the code in every language, complete, compiling, with
the same placeholders; and the choice of a language from Accept-Language."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from service.support.i18n import DOMAINS, LANGUAGES, LOCALES, _, negotiate, speaking, translations
from tests.conftest import ROOT

PLACEHOLDER = re.compile(r"\{[a-z_]*\}")
TRANSLATED = [language for language in LANGUAGES if language != "en"]


def domains() -> list[str]:
    return [domain for domain in DOMAINS if (LOCALES / f"{domain}.cfg").exists()]


def catalog(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=language)


def ids(messages: Catalog) -> set[str]:
    return {str(m.id if isinstance(m.id, str) else m.id[0]) for m in messages if m.id}


@pytest.mark.parametrize("domain", domains())
def test_the_templates_hold_every_message_of_the_code(domain: str, tmp_path: Path) -> None:
    extracted = tmp_path / f"{domain}.pot"
    subprocess.run(
        [
            sys.executable, "-m", "babel.messages.frontend", "-q", "extract", "--no-location",
            "--sort-output", "--omit-header", "-F", str(LOCALES / f"{domain}.cfg"),
            "-k", "_", "-k", "N_", "-k", "ngettext:1,2", "-o", str(extracted), ".",
        ],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    committed = LOCALES / f"{domain}.pot"
    assert ids(catalog(extracted)) == ids(catalog(committed)), "run scripts/catalogs"


@pytest.mark.parametrize("domain", domains())
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_has_its_translation(domain: str, language: str) -> None:
    template = catalog(LOCALES / f"{domain}.pot")
    translated = catalog(LOCALES / language / "LC_MESSAGES" / f"{domain}.po", language)
    assert translated.plural_forms.startswith("nplurals=2;")
    for message in template:
        if not message.id:
            continue
        entry = translated[message.id]
        where = f"{language}/{domain}: {message.id!r}"
        assert entry is not None, f"missing {where}"
        assert not entry.fuzzy, f"fuzzy {where}"
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        assert len(forms) == len(sources), f"plural forms of {where}"
        wanted = set(PLACEHOLDER.findall(sources[0])) | set(PLACEHOLDER.findall(sources[-1]))
        for form in forms:
            assert form, f"untranslated {where}"
            assert set(PLACEHOLDER.findall(form)) == wanted, f"placeholders of {where}"


@pytest.mark.parametrize("domain", domains())
@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogs_compile(domain: str, language: str) -> None:
    translated = catalog(LOCALES / language / "LC_MESSAGES" / f"{domain}.po", language)
    compiled = io.BytesIO()
    write_mo(compiled, translated, use_fuzzy=False)
    assert compiled.getvalue()
    # ... and the service's own loading of it translates.
    some = next(m for m in translated if m.id and isinstance(m.id, str))
    assert translations(language, domain).gettext(str(some.id)) == some.string


def test_a_message_in_each_language() -> None:
    said = {}
    for language in LANGUAGES:
        with speaking(language):
            said[language] = _("tile {tile} is already closed", tile=4)
    assert said["en"] == "tile 4 is already closed"
    assert len(set(said.values())) == 4 and all("4" in text for text in said.values())


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("nb", "nb"),
        ("no", "nb"),
        ("nn-NO", "nb"),
        ("nb-NO,nb;q=0.9,en;q=0.8", "nb"),
        ("de-AT", "de"),
        ("de-CH,fr;q=0.5", "de"),
        ("nl-BE", "nl"),
        ("NL", "nl"),
        ("en-GB", "en"),
        ("fr-FR,de;q=0.7,nl;q=0.9", "nl"),  # by quality, not by order
        ("de;q=0.5,nl;q=0.5", "de"),  # a tie: the first
        ("de;q=0,nl", "nl"),  # q=0 refuses
        ("fr, *;q=0.1", "en"),  # a wildcard: English
        ("*", "en"),
        ("fr-FR", None),
        ("", None),
        (None, None),
        (";;;,,,", None),
        ("de;q=2", "de"),  # a bad quality is ignored, not the language
        ("\u00e6\u00f8\u00e5", None),
        ("x" * 10_000, None),
        ("de-" + "a" * 200, None),  # not a language range
    ],
)
def test_accept_language_chooses_among_ours(header: str | None, language: str | None) -> None:
    assert negotiate(header) == language


# The words the players use (PRODUCT.md §8) for two ideas that must never share a word
# within a language: the streak (days played in a row) and the series (a game night).
STREAK_AND_SERIES = {
    "nb": ("rekke", "serie"),
    "nl": ("reeks", "spelavond"),
    "de": ("serie", "spielabend"),
}


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"\b{word}(s|es)?\b", text, re.IGNORECASE) is not None


@pytest.mark.parametrize("domain", domains())
@pytest.mark.parametrize("language", TRANSLATED)
def test_the_streak_and_the_series_never_share_a_word(domain: str, language: str) -> None:
    streak, series = STREAK_AND_SERIES[language]
    translated = catalog(LOCALES / language / "LC_MESSAGES" / f"{domain}.po", language)
    checked = 0
    for message in translated:
        if not message.id:
            continue
        source = str(message.id if isinstance(message.id, str) else message.id[0])
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        about_series = _mentions(source, "series") or _mentions(source, "game night")
        about_streak = _mentions(source, "streak")
        if about_series == about_streak:
            continue  # neither, or both in one sentence
        other = streak if about_series else series
        for form in forms:
            where = f"{language}/{domain}: {source!r} is {form!r}"
            assert other not in form.lower(), f"{where}: the word for the other idea, {other!r}"
        checked += 1
    assert checked, "no message about a streak or a series"
    if domain == "play":  # the page's names of the two
        assert streak in str(translated["Streak"].string).lower()
        assert series in str(translated["Series"].string).lower()
