"""Deals: the token binds the rules and dice the service dealt, until it expires."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings

from service.rules.ruleset import ALL_ROLLS, Rules
from service.usecases import deals
from tests.unit.rules.strategies import variants

KEY = deals.signing_key(b"the secret")
NOW = datetime(2026, 12, 4, 18, 0, tzinfo=UTC)


@settings(max_examples=100, deadline=None)
@given(variants(max_tiles=12))
def test_a_token_gives_back_its_deal_under_every_rules(rules: Rules) -> None:
    dealt = deals.deal(rules, NOW)
    assert len(dealt.dice) == dealt.rules.rolls and set(dealt.dice) <= set(ALL_ROLLS)
    token = deals.token(KEY, dealt)
    assert len(token) <= deals.MAX_TOKEN
    assert re.fullmatch(deals.TOKEN_PATTERN, token)
    assert deals.read(KEY, token, NOW + timedelta(hours=23, minutes=59)) == dealt


def test_a_deal_expires_after_a_day() -> None:
    dealt = deals.deal(Rules(), NOW)
    token = deals.token(KEY, dealt)
    with pytest.raises(deals.DealExpired) as expired:
        deals.read(KEY, token, NOW + deals.LIFETIME)
    assert expired.value.expired_at == dealt.expires_at == NOW + timedelta(hours=24)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_a_changed_or_forged_token_is_no_deal() -> None:
    dealt = deals.deal(Rules(), NOW)
    token = deals.token(KEY, dealt)
    payload, signature = token.split(".")
    decoded = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    # Other dice (the first roll changed) under the same signature.
    fields = json.loads(decoded)
    fields[2] = ("11" if fields[2][:2] != "11" else "66") + fields[2][2:]
    changed = json.dumps(fields, separators=(",", ":")).encode()
    forged = [
        f"{_b64(changed)}.{signature}",
        deals.token(deals.signing_key(b"another secret"), dealt),
        f"{payload}.{signature[:-2]}AA",
        "not-a-token",
        f"{payload}.",
        "",
    ]
    for text in forged:
        with pytest.raises(deals.BadDeal):
            deals.read(KEY, text, NOW)


def test_every_deal_is_its_own() -> None:
    made = [deals.deal(Rules(), NOW) for _ in range(50)]
    assert len({d.id for d in made}) == 50
    assert len({d.dice for d in made}) == 50  # 36**10 dice: a repeat would be a broken draw
