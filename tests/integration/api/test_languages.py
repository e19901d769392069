"""The players' languages over HTTP: Accept-Language (else the player's stored language)
chooses the human text; codes stay codes."""

from __future__ import annotations

from typing import Final

import httpx
import pytest

from service.support.codes import ALPHABET, display, new_code
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_run

TODAY: Final = "2026-11-29"
# The share text's first line, with the date as each language writes it (CLDR).
TITLES: Final = {
    "en": "Shut the Box Challenge November 29, 2026",
    "nb": "Shut the Box Challenge 29. november 2026",
    "nl": "Shut the Box Challenge 29 november 2026",
    "de": "Shut the Box Challenge 29. November 2026",
}
# A word of the second line (the score or the shut box) in each language.
OUTCOMES: Final = {
    "en": ("Score", "Shut the box"),
    "nb": ("Resultat", "Lukket boksen"),
    "nl": ("Score", "doos"),
    "de": ("Strafpunkte", "Box geschlossen"),
}


async def played_today(client: httpx.AsyncClient, **player: str) -> dict[str, str]:
    created = await new_player(client, **player)
    moves = legal_run(await daily_dice(client, TODAY))
    response = await client.post(
        f"/v1/daily/{TODAY}/runs", json={"moves": moves}, headers=auth(created)
    )
    assert response.status_code == 201, response.text
    return created


def language_of(response: httpx.Response) -> str:
    assert "Accept-Language" in response.headers.get("vary", "")
    return response.headers["content-language"]


async def test_the_share_text_in_each_language(client: httpx.AsyncClient) -> None:
    player = await played_today(client)
    for language, title in TITLES.items():
        response = await client.get(
            f"/v1/daily/{TODAY}/share", headers={**auth(player), "Accept-Language": language}
        )
        assert response.status_code == 200
        assert language_of(response) == language
        first, outcome, symbols = response.json()["text"].split("\n")
        assert first == title
        assert any(word in outcome for word in OUTCOMES[language]), outcome
        assert symbols and not any(c.isalpha() for c in symbols)  # still no spoiler


async def test_a_player_s_language_is_used_when_the_request_names_none(
    client: httpx.AsyncClient,
) -> None:
    player = await played_today(client)
    changed = await client.patch("/v1/players/me", json={"language": "de"}, headers=auth(player))
    assert changed.status_code == 200 and changed.json()["language"] == "de"
    share = f"/v1/daily/{TODAY}/share"
    for header in (None, "fr-FR", "garbage;;;"):
        headers = auth(player) | ({"Accept-Language": header} if header else {})
        response = await client.get(share, headers=headers)
        assert language_of(response) == "de", header
        assert response.json()["text"].startswith(TITLES["de"])
    named = await client.get(share, headers={**auth(player), "Accept-Language": "nn"})
    assert language_of(named) == "nb"  # the request's own choice wins
    refused = await client.patch("/v1/players/me", json={"language": "fr"}, headers=auth(player))
    assert refused.status_code == 400
    assert refused.json()["type"] == "/problems/invalid-request"
    assert (await client.get("/v1/players/me", headers=auth(player))).json()["language"] == "de"


async def test_a_problem_in_each_language_keeps_its_type(client: httpx.AsyncClient) -> None:
    code = new_code()
    wrong = code[:-1] + next(c for c in ALPHABET if c != code[-1])
    seen = {}
    for language in TITLES:
        response = await client.get(
            f"/v1/boxes/{display(wrong)}", headers={"Accept-Language": language}
        )
        assert response.status_code == 400
        assert language_of(response) == language
        problem = response.json()
        assert problem["type"] == "/problems/mistyped-code"
        seen[language] = (problem["title"], problem["detail"])
    assert len({title for title, _ in seen.values()}) == 4
    assert len({detail for _, detail in seen.values()}) == 4
    assert "mistyped" in seen["en"][1]


async def test_an_illegal_run_is_explained_in_the_player_s_language(
    client: httpx.AsyncClient,
) -> None:
    player = await new_player(client)
    dice = await daily_dice(client, TODAY)
    moves = legal_run(dice)
    illegal = [moves[0], moves[0]]  # the same tiles twice: already closed
    answers = {}
    for language in TITLES:
        response = await client.post(
            f"/v1/daily/{TODAY}/runs",
            json={"moves": illegal},
            headers={**auth(player), "Accept-Language": language},
        )
        assert response.status_code == 422, response.text
        answers[language] = response.json()
    codes = {
        (a["type"], a["move_index"], tuple(a["roll"]), a["dice_used"]) for a in answers.values()
    }
    assert codes == {("/problems/tile-not-open", 1, tuple(dice[1]), 2)}
    assert len({a["reason"] for a in answers.values()}) == 4
    assert len({a["detail"] for a in answers.values()}) == 4
    assert answers["de"]["detail"].startswith("Zug 2")


async def test_rules_and_labels_are_told_in_the_language_their_codes_are_not(
    client: httpx.AsyncClient,
) -> None:
    catalogs = {
        language: (await client.get("/v1/rules", headers={"Accept-Language": language}))
        for language in TITLES
    }
    for language, response in catalogs.items():
        assert language_of(response) == language
    fields = {language: response.json()["fields"] for language, response in catalogs.items()}
    assert len({str(f[2]["choices"]) for f in fields.values()}) == 4  # the lines differ
    assert len({str([c["value"] for c in f[2]["choices"]]) for f in fields.values()}) == 1

    dice = [[3, 4], [6, 6], [1, 1], [1, 2], [2, 3], [5, 5], [6, 6], [1, 1], [2, 2], [3, 3]]
    body = {"dice": dice, "moves": legal_run(dice)}
    analyses = {}
    for language in TITLES:
        response = await client.post(
            "/v1/analyze", json=body, headers={"Accept-Language": language}
        )
        assert response.status_code == 200, response.text
        analyses[language] = response.json()["analysis"]["moves"]
    labels = {str([m["label"] for m in moves]) for moves in analyses.values()}
    assert len(labels) == 1
    words = {m["label"]: m["label_text"] for m in analyses["en"]}
    assert all(words[label] == label for label in words)  # English: the code itself
    german = {m["label"]: m["label_text"] for m in analyses["de"]}
    assert german.get("best", "bester Zug") == "bester Zug"


@pytest.mark.parametrize(
    "header", ["", "*", ";q=", "q=0.5", "fr;q=abc", "\t", "x" * 5000, "zz-ZZ-1234567890"]
)
async def test_odd_accept_language_headers_are_english_never_an_error(
    client: httpx.AsyncClient, header: str
) -> None:
    response = await client.get("/v1/rules", headers={"Accept-Language": header})
    assert response.status_code == 200
    assert language_of(response) == "en"


async def test_text_free_answers_claim_no_language(client: httpx.AsyncClient) -> None:
    response = await client.get(f"/v1/daily/{TODAY}", headers={"Accept-Language": "de"})
    assert response.status_code == 200
    assert "content-language" not in response.headers


async def test_a_malformed_body_is_explained_in_the_language_too(
    client: httpx.AsyncClient,
) -> None:
    said = {}
    for language in TITLES:
        response = await client.post(
            "/v1/hint", json={"open": ["7"]}, headers={"Accept-Language": language}
        )
        assert response.status_code == 400
        assert response.json()["type"] == "/problems/invalid-request"
        said[language] = response.json()["detail"]
    assert said["en"] == "Expected int, got str (at open[0])"
    assert said["de"] == "Erwartet int, erhalten str (bei open[0])"
    assert len(set(said.values())) == 4
