"""Deals: fresh dice for a Solo round, and a signed token that binds them to their rules.

The service gives the hindsight figures of some dice only when it chose them
(PRODUCT.md §6b). A Solo round's dice are chosen here: drawn from the operating system's
randomness (``secrets``), never from the dice secret, so a deal is never a challenge's
dice. Nothing is stored: the token is the deal, and it expires after ``LIFETIME``.

A token is ``<payload>.<signature>``, both base64url without padding:

- the payload is the JSON array ``[1, rules, dice, expires, id]``: the format's version,
  the rules as stored (``Rules.stored``), the rolls as digits (``"5213..."``, each roll
  two digits), the expiry in Unix seconds and the deal's id (a UUID, 32 hex digits: a
  box made of the deal keeps it, so one deal makes one box);
- the signature is HMAC-SHA256 of the payload's bytes, keyed with a key of its own
  derived from the service's secret (``signing_key``): a token made or changed by anyone
  else fails it. A change of secret ends every deal in flight (they fail as forged).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import msgspec

from service.rules.dice import check_dice
from service.rules.ruleset import ALL_ROLLS, Roll, Rules

LIFETIME: Final = timedelta(hours=24)
VERSION: Final = 1
MAX_TOKEN: Final = 1024
"""The longest token a deal makes is under 400 characters (12 tiles, every rules field)."""
TOKEN_PATTERN: Final = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$"


class BadDeal(ValueError):
    """A token that is not a deal of this service: malformed, or its signature fails."""


class DealExpired(ValueError):
    """A deal of this service, past its expiry."""

    def __init__(self, expired_at: datetime) -> None:
        self.expired_at = expired_at
        super().__init__(f"the deal expired at {expired_at.isoformat()}")


@dataclass(frozen=True)
class Deal:
    """Dice the service dealt for a Solo round under some rules, until ``expires_at``."""

    id: uuid.UUID
    rules: Rules
    dice: tuple[Roll, ...]
    expires_at: datetime


def signing_key(secret: bytes) -> bytes:
    """The deals' own key: the secret signs nothing else with it."""
    return hmac.new(secret, b"shutbox deals v1", hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class _Payload(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    version: int
    rules: dict[str, object]
    dice: str
    expires: int
    id: str


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(_Payload).decode


def deal(rules: Rules, now: datetime) -> Deal:
    """Fresh dice for ``rules``, every roll one of the 36 equally likely."""
    dice = tuple(ALL_ROLLS[secrets.randbelow(len(ALL_ROLLS))] for _ in range(rules.rolls))
    expires = (now + LIFETIME).replace(microsecond=0)
    return Deal(id=uuid.uuid4(), rules=rules, dice=dice, expires_at=expires)


def token(key: bytes, dealt: Deal) -> str:
    """The deal as its signed token."""
    payload = _encode(
        _Payload(
            version=VERSION,
            rules=dealt.rules.stored(),
            dice="".join(f"{a}{b}" for a, b in dealt.dice),
            expires=int(dealt.expires_at.timestamp()),
            id=dealt.id.hex,
        )
    )
    signature = hmac.new(key, payload, hashlib.sha256).digest()
    return f"{_b64(payload)}.{_b64(signature)}"


def read(key: bytes, text: str, now: datetime) -> Deal:
    """The deal a token carries: ``BadDeal`` unless this service signed it, then
    ``DealExpired`` past its expiry."""
    payload_text, _, signature_text = text.partition(".")
    try:
        payload, signature = _unb64(payload_text), _unb64(signature_text)
    except (binascii.Error, ValueError):
        raise BadDeal("not a deal token") from None
    expected = hmac.new(key, payload, hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise BadDeal("the deal's signature fails")
    # Signed here, so well-formed; a version this process does not know is refused.
    try:
        data = _decode(payload)
        rules = msgspec.convert(data.rules, Rules)
        digits = [int(d) for d in data.dice]
        dice = check_dice(rules, [digits[i : i + 2] for i in range(0, len(digits), 2)])
        deal_id = uuid.UUID(hex=data.id)
    except (msgspec.ValidationError, ValueError):
        raise BadDeal("not a deal of this version") from None
    if data.version != VERSION:
        raise BadDeal("not a deal of this version")
    expires_at = datetime.fromtimestamp(data.expires, UTC)
    if now >= expires_at:
        raise DealExpired(expires_at)
    return Deal(id=deal_id, rules=rules, dice=dice, expires_at=expires_at)
