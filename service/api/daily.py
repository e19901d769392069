"""Daily Dice: one sequence per calendar date, the same for everyone."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Final

import asyncpg
import msgspec
from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import PathParameter

from service.api.problems import documented, problem
from service.api.schemas import RulesOut, rules_out
from service.clock import Clock
from service.rules.dice import daily_sequence_id
from service.rules.ruleset import Roll, Rules
from service.settings import Settings
from service.store import sequences
from service.store.cache import Cache

# A date begins first at UTC+14 (Line Islands): nobody plays or sees it before then.
EARLIEST_UTC_OFFSET: Final = timedelta(hours=14)
CACHE_CONTROL: Final = "public, max-age=86400"
_ISO_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")

DatePath = Annotated[str, PathParameter(description="A calendar date, YYYY-MM-DD.")]


class DailyDice(msgspec.Struct, frozen=True):
    date: date
    sequence: str
    rules: RulesOut
    dice: list[Roll]


def parse_date(text: str) -> date:
    """A path's date, or 400 saying why it is not one."""
    try:
        if not _ISO_DATE.match(text):
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise problem(
            400, "invalid-date", f"{text!r} is not a calendar date; use YYYY-MM-DD, e.g. 2026-11-29"
        ) from None


def has_begun(day: date, now: datetime) -> bool:
    """Whether ``day`` has begun somewhere on Earth at ``now``."""
    return (now.astimezone(UTC) + EARLIEST_UTC_OFFSET).date() >= day


def check_open_date(day: date, settings: Settings, now: datetime) -> None:
    if day < settings.launch_date:
        raise problem(
            404, "unknown-date", f"The Daily Dice began on {settings.launch_date.isoformat()}."
        )
    if not has_begun(day, now):
        raise problem(
            404, "unknown-date", f"{day.isoformat()} has not begun anywhere on Earth yet."
        )


_encoder = msgspec.json.Encoder()


class DailyController(Controller):
    path = "/v1/daily"
    tags = ["Daily Dice"]

    @get(
        "/{day:str}",
        operation_id="getDailyDice",
        summary="The Daily Dice of a date",
        description=(
            "The same dice for everyone, from the moment the date begins somewhere on Earth "
            "(UTC+14). Cacheable: the dice of a date never change (ETag, Cache-Control)."
        ),
        responses=documented(404),
    )
    async def daily(
        self,
        request: Request[Any, Any, Any],
        pool: NamedDependency[asyncpg.Pool],
        cache: NamedDependency[Cache],
        clock: NamedDependency[Clock],
        settings: NamedDependency[Settings],
        day: DatePath,
    ) -> Response[DailyDice]:
        when = parse_date(day)
        now = clock.now()
        check_open_date(when, settings, now)
        sequence_id = daily_sequence_id(when)
        issued = await sequences.issue(
            pool, cache, settings.secret_bytes, sequence_id, Rules(), now
        )
        body = _encoder.encode(
            DailyDice(
                date=when,
                sequence=sequence_id,
                rules=rules_out(issued.rules),
                dice=list(issued.dice),
            )
        )
        etag = '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"'
        headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL}
        if etag in request.headers.get("if-none-match", ""):
            return Response(content=b"", status_code=304, headers=headers)  # type: ignore[arg-type]
        return Response(content=body, media_type="application/json", headers=headers)  # type: ignore[arg-type]
