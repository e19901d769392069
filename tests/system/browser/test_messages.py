"""The page's words without a browser (gettext domain ``play``): every message the
page's code marks is in the template ``service/locales/play.pot``; Norwegian, Dutch and
German translate every one of them (every plural form, nothing fuzzy, the same named
values as the English); and ``GET /play/messages/<language>.json`` serves them, an
unknown language getting 404, never a 500."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import msgspec
import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from service.support.i18n import LOCALES, Language
from service.web import MESSAGES_DOMAIN, PLAY_DIRECTORY, page_messages

TRANSLATED: tuple[Language, ...] = ("nb", "nl", "de")
# The keywords of scripts/catalogs.
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
PLACEHOLDER = re.compile(r"\{(\w*)\}")
KEPT_IN_ENGLISH = ("Daily Dice", "Friend Box", "Shut the Box Challenge")

Key = str | tuple[str, ...]


def read_catalog(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as source:
        return read_po(source, locale=language, domain=MESSAGES_DOMAIN)


def template() -> Catalog:
    return read_catalog(LOCALES / f"{MESSAGES_DOMAIN}.pot")


def key(message_id: str | tuple[str, ...] | list[str]) -> Key:
    return message_id if isinstance(message_id, str) else tuple(message_id)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def test_the_template_holds_every_message_the_page_marks() -> None:
    marked: set[Key] = set()
    for path in sorted(PLAY_DIRECTORY.glob("*.js")):
        for _line, message, _comments, _context in extract_from_file(
            "javascript", path, keywords=KEYWORDS
        ):
            marked.add(key(message))
    written = {key(message.id) for message in template() if message.id}
    assert marked == written, (
        "service/locales/play.pot is not the page's messages: run scripts/catalogs "
        f"(only in the code: {sorted(map(str, marked - written))}; "
        f"only in the template: {sorted(map(str, written - marked))})"
    )
    assert len(written) > 150


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated(language: Language) -> None:
    catalog = read_catalog(LOCALES / language / "LC_MESSAGES" / f"{MESSAGES_DOMAIN}.po", language)
    assert catalog.plural_forms == "nplurals=2; plural=(n != 1);"
    assert not [message.id for message in catalog if message.id and message.fuzzy]
    served = page_messages(language)
    missing = []
    for message in template():
        if not message.id:
            continue
        if isinstance(message.id, str):
            text = served.get(message.id)
            if not isinstance(text, str) or not text:
                missing.append(message.id)
                continue
            assert placeholders(text) == placeholders(message.id), (language, message.id, text)
        else:
            singular, plural = message.id[0], message.id[1]
            assert placeholders(singular) == placeholders(plural), singular
            forms = served.get(singular)
            if not isinstance(forms, list) or len(forms) != catalog.num_plurals or not all(forms):
                missing.append(singular)
                continue
            for form in forms:
                assert placeholders(form) == placeholders(singular), (language, singular, form)
    assert missing == [], f"{language}: not translated: {missing}"
    assert len(served) == len([message for message in template() if message.id])
    for name in KEPT_IN_ENGLISH:
        assert served[name] == name


def test_english_needs_no_catalog() -> None:
    assert page_messages("en") == {}


async def test_the_messages_are_served(page_client: httpx.AsyncClient) -> None:
    for language in TRANSLATED:
        answer = await page_client.get(f"/play/messages/{language}.json")
        assert answer.status_code == 200, answer.text
        assert answer.headers["content-type"].startswith("application/json")
        assert answer.headers["cache-control"] == "no-cache"
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.json() == msgspec.json.decode(msgspec.json.encode(page_messages(language)))
        etag = answer.headers["etag"]
        again = await page_client.get(
            f"/play/messages/{language}.json", headers={"If-None-Match": etag}
        )
        assert again.status_code == 304 and again.content == b""
    german = (await page_client.get("/play/messages/de.json")).json()
    assert german["Roll {roll}"] == "Wurf {roll}"
    assert german["{count} roll"] == ["{count} Wurf", "{count} Würfe"]
    english = await page_client.get("/play/messages/en.json")
    assert english.status_code == 200 and english.json() == {}


@pytest.mark.parametrize(
    "name",
    ["fr.json", "xx.json", "nb", "NB.json", "nb.json.bak", "en-US.json", "..%2Fapp.js", "%00"],
)
async def test_an_unknown_language_is_not_found(page_client: httpx.AsyncClient, name: str) -> None:
    answer = await page_client.get(f"/play/messages/{name}")
    assert answer.status_code == 404, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
