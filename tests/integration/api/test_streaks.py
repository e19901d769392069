"""Streaks over many days of the controlled clock: missed days, daylight-saving
changes, time-zone changes, the edges of the grace window, dates not yet begun."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from service.support.clock import FixedClock
from tests.integration.api.helpers import auth, daily_dice, new_player
from tests.runs import legal_runs


class Day:
    """Drives one player through the days: the clock is set to local times."""

    def __init__(self, client: httpx.AsyncClient, clock: FixedClock, player: dict[str, str]):
        self.client, self.clock, self.player = client, clock, player
        self.zone = ZoneInfo(player["time_zone"])

    def at(self, local: str) -> None:
        naive = datetime.fromisoformat(local)
        self.clock.set(naive.replace(tzinfo=self.zone).astimezone(UTC))

    async def play(self, day: str, run: int = 0) -> httpx.Response:
        moves = legal_runs(await daily_dice(self.client, day), run + 1)[run]
        return await self.client.post(
            f"/v1/daily/{day}/runs", json={"moves": moves}, headers=auth(self.player)
        )

    async def streak(self) -> dict[str, Any]:
        response = await self.client.get("/v1/players/me/streak", headers=auth(self.player))
        assert response.status_code == 200
        streak: dict[str, Any] = response.json()
        return streak

    async def move_to(self, time_zone: str) -> httpx.Response:
        response = await self.client.patch(
            "/v1/players/me", json={"time_zone": time_zone}, headers=auth(self.player)
        )
        if response.status_code == 200:
            self.zone = ZoneInfo(time_zone)
        return response


async def test_a_fortnight_in_oslo_across_the_spring_change(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 3, 24, 12, tzinfo=UTC))
    days = Day(client, clock, await new_player(client, time_zone="Europe/Oslo"))

    days.at("2026-03-24T20:00")
    assert (await days.play("2026-03-24")).status_code == 201
    days.at("2026-03-25T23:55")
    assert (await days.play("2026-03-25")).json()["streak"]["current"] == 2

    # The grace: 00:14:59 after midnight the date just ended is still open...
    days.at("2026-03-27T00:14:59")
    assert (await days.streak())["current"] == 2  # 26 March can still be played
    late = await days.play("2026-03-26")
    assert late.status_code == 201
    assert late.json()["streak"] == {
        "current": 3, "best": 3, "last_played": "2026-03-26", "played_today": False,
        "freezes": 0, "weekly": {"current": 1, "best": 1},
    }  # fmt: skip
    # ...and at 00:15:00 it is not.
    days.at("2026-03-28T00:15:00")
    refused = await days.play("2026-03-27")
    assert refused.status_code == 422 and refused.json()["type"] == "/problems/date-not-open"
    assert await days.streak() == {
        "current": 0, "best": 3, "last_played": "2026-03-26", "played_today": False,
        "freezes": 0, "weekly": {"current": 1, "best": 1},
    }  # fmt: skip

    days.at("2026-03-28T12:00")
    assert (await days.play("2026-03-28")).json()["streak"]["current"] == 1
    # 29 March 2026: clocks go from 02:00 to 03:00 in Oslo (a 23-hour day).
    days.at("2026-03-29T23:30")
    assert (await days.play("2026-03-29")).json()["streak"]["current"] == 2
    days.at("2026-03-30T00:10")
    assert await days.streak() == {
        "current": 2, "best": 3, "last_played": "2026-03-29", "played_today": False,
        "freezes": 0, "weekly": {"current": 1, "best": 1},
    }  # fmt: skip
    days.at("2026-03-30T09:00")
    assert (await days.play("2026-03-30")).json()["streak"]["current"] == 3

    # Moving to New York keeps the streak: 31 March is a calendar date like any other.
    assert (await days.move_to("America/New_York")).status_code == 200
    days.at("2026-03-31T19:00")
    assert (await days.play("2026-03-31")).json()["streak"]["current"] == 4
    assert (await days.move_to("Europe/Oslo")).status_code == 200  # 40 hours later
    days.at("2026-04-01T03:00")
    assert (await days.play("2026-04-01")).json()["streak"]["current"] == 5

    # At most one change of time zone in 24 hours.
    soon = await days.move_to("Pacific/Kiritimati")
    assert soon.status_code == 409
    assert soon.json()["type"] == "/problems/time-zone-change-too-soon"
    assert soon.json()["possible_at"] == "2026-04-01T23:00:00Z"
    # Crossing the date line never lets a day count twice, nor reopens one.
    days.at("2026-04-02T01:00")  # 23:00 UTC: 24 hours after the last change
    assert (await days.move_to("Pacific/Kiritimati")).status_code == 200  # 2 April there
    assert (await days.play("2026-04-02")).json()["streak"]["current"] == 6
    days.at("2026-04-03T13:00")  # 23:00 UTC on 2 April
    assert (await days.move_to("Pacific/Pago_Pago")).status_code == 200  # UTC-11: 2 April
    for day in ("2026-04-01", "2026-04-02"):  # closed for this player in Kiritimati
        again = await days.play(day, run=1)
        assert again.status_code == 422 and again.json()["type"] == "/problems/date-not-open"
    assert await days.streak() == {  # 2 April is today in Pago Pago, and it was played
        "current": 6, "best": 6, "last_played": "2026-04-02", "played_today": True,
        "freezes": 0, "weekly": {"current": 2, "best": 2},
    }  # fmt: skip

    # A date not yet begun anywhere, then a missed day.
    days.at("2026-04-04T12:00")
    assert (await days.move_to("Europe/Oslo")).status_code == 200
    early = await client.post(
        "/v1/daily/2026-04-10/runs", json={"moves": [[7]]}, headers=auth(days.player)
    )
    assert early.status_code == 404 and early.json()["type"] == "/problems/unknown-date"
    assert await days.streak() == {
        "current": 0, "best": 6, "last_played": "2026-04-02", "played_today": False,
        "freezes": 0, "weekly": {"current": 2, "best": 2},
    }  # fmt: skip


@pytest.mark.parametrize(
    ("time_zone", "first_day"),
    [
        ("America/New_York", "2026-10-29"),  # 1 November: 02:00 EDT becomes 01:00 EST
        ("Europe/Oslo", "2026-10-22"),  # 25 October: 03:00 CEST becomes 02:00 CET
        ("America/New_York", "2026-03-05"),  # 8 March: 02:00 EST becomes 03:00 EDT
    ],
)
async def test_a_streak_runs_through_a_daylight_saving_change(
    client: httpx.AsyncClient, clock: FixedClock, time_zone: str, first_day: str
) -> None:
    clock.set(datetime.fromisoformat(first_day).replace(tzinfo=UTC))
    days = Day(client, clock, await new_player(client, time_zone=time_zone))
    start = datetime.fromisoformat(first_day)
    for n in range(6):
        day = (start + timedelta(days=n)).date().isoformat()
        # Alternate late evenings, the grace after midnight, and early mornings.
        if n % 3 == 0:
            days.at(f"{day}T23:59:30")
        elif n % 3 == 1:
            days.at(f"{(start + timedelta(days=n + 1)).date().isoformat()}T00:10")
        else:
            days.at(f"{day}T01:30")
        response = await days.play(day)
        assert response.status_code == 201, response.text
        assert response.json()["streak"]["current"] == n + 1
        assert response.json()["streak"]["best"] == n + 1


# --- freezes, the weekly streak, today (PRODUCT.md §6) ------------------------------------


async def today(days: Day) -> dict[str, Any]:
    response = await days.client.get("/v1/players/me/today", headers=auth(days.player))
    assert response.status_code == 200, response.text
    shown: dict[str, Any] = response.json()
    return shown


async def history(days: Day) -> list[dict[str, Any]]:
    response = await days.client.get("/v1/players/me/history", headers=auth(days.player))
    assert response.status_code == 200, response.text
    entries: list[dict[str, Any]] = response.json()
    return entries


def dates(entries: list[dict[str, Any]]) -> list[tuple[str, bool]]:
    return [(entry["date"], entry["frozen"]) for entry in entries]


async def play_in_a_row(days: Day, first: str, count: int, at: str = "20:00") -> list[Any]:
    """``count`` dates from ``first`` on, each played at ``at`` local time: each answer's
    streak."""
    streaks = []
    for n in range(count):
        day = (datetime.fromisoformat(first) + timedelta(days=n)).date().isoformat()
        days.at(f"{day}T{at}")
        response = await days.play(day)
        assert response.status_code == 201, response.text
        streaks.append(response.json()["streak"])
    return streaks


async def test_each_seventh_date_earns_a_freeze_and_never_a_third(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 11, 2, 8, tzinfo=UTC))
    days = Day(client, clock, await new_player(client))
    streaks = await play_in_a_row(days, "2026-11-02", 22, at="12:00")  # from a Monday
    assert [s["freezes"] for s in streaks] == [0] * 6 + [1] * 7 + [2] * 9
    assert [s["current"] for s in streaks] == list(range(1, 23))
    assert streaks[-1]["weekly"] == {"current": 4, "best": 4}
    assert (await days.streak())["freezes"] == 2


async def test_two_missed_dates_with_one_freeze_break_the_streak(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 11, 2, 8, tzinfo=UTC))
    days = Day(client, clock, await new_player(client))
    assert (await play_in_a_row(days, "2026-11-02", 7))[-1]["freezes"] == 1

    # The 9th missed: the freeze covers it, the 10th is still open (and at risk).
    days.at("2026-11-10T12:00")
    assert await today(days) == {
        "date": "2026-11-10", "closes_at": "2026-11-11T00:15:00Z", "played": False,
        "at_risk": True, "streak": await days.streak(),
    }  # fmt: skip
    assert await days.streak() == {
        "current": 7, "best": 7, "last_played": "2026-11-08", "played_today": False,
        "freezes": 0, "weekly": {"current": 1, "best": 1},
    }  # fmt: skip
    assert dates(await history(days))[:2] == [("2026-11-09", True), ("2026-11-08", False)]

    # The 10th missed too, with no freeze left: the streak is broken.
    days.at("2026-11-11T12:00")
    assert (await days.streak())["current"] == 0
    assert (await days.streak())["freezes"] == 0
    assert (await today(days))["at_risk"] is False  # nothing left to lose
    again = await days.play("2026-11-11")
    assert again.json()["streak"]["current"] == 1
    assert again.json()["streak"]["best"] == 7
    shown = dates(await history(days))
    assert shown[:3] == [("2026-11-11", False), ("2026-11-09", True), ("2026-11-08", False)]
    frozen = [entry for entry in await history(days) if entry["frozen"]]
    assert frozen == [{"date": "2026-11-09", "frozen": True}]  # no score, no rank


async def test_a_freeze_is_spent_across_a_daylight_saving_change(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    # 29 March 2026 in Oslo is 23 hours long (02:00 becomes 03:00).
    clock.set(datetime(2026, 3, 22, 8, tzinfo=UTC))
    days = Day(client, clock, await new_player(client, time_zone="Europe/Oslo"))
    await play_in_a_row(days, "2026-03-22", 7)  # through the 28th

    days.at("2026-03-29T23:00")
    assert await today(days) == {
        "date": "2026-03-29", "closes_at": "2026-03-29T22:15:00Z", "played": False,
        "at_risk": True, "streak": await days.streak(),
    }  # fmt: skip
    days.at("2026-03-30T00:14:59")  # the 29th is still open, the freeze still held
    assert ((await days.streak())["current"], (await days.streak())["freezes"]) == (7, 1)
    days.at("2026-03-30T00:15:00")  # the 29th has closed: frozen
    assert ((await days.streak())["current"], (await days.streak())["freezes"]) == (7, 0)
    assert dates(await history(days))[0] == ("2026-03-29", True)
    days.at("2026-03-30T20:00")
    played = (await days.play("2026-03-30")).json()["streak"]
    assert (played["current"], played["best"], played["freezes"]) == (8, 8, 0)
    assert dates(await history(days))[:3] == [
        ("2026-03-30", False), ("2026-03-29", True), ("2026-03-28", False),
    ]  # fmt: skip


async def test_a_freeze_is_spent_after_a_move_west(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 11, 1, 12, tzinfo=UTC))
    days = Day(client, clock, await new_player(client, time_zone="Asia/Tokyo"))
    await play_in_a_row(days, "2026-11-02", 7)  # through the 8th, evenings in Tokyo

    # 09:00 on the 9th in Tokyo is 16:00 on the 8th in Los Angeles: the 9th has begun for
    # the player and stays theirs; the 8th (played) is today in Los Angeles.
    days.at("2026-11-09T09:00")
    assert (await days.move_to("America/Los_Angeles")).status_code == 200
    shown = await today(days)
    assert shown["date"] == "2026-11-09"
    assert shown["closes_at"] == "2026-11-10T08:15:00Z"  # midnight in Los Angeles, PST
    assert (shown["played"], shown["at_risk"]) == (False, True)
    assert shown["streak"]["current"] == 7 and shown["streak"]["freezes"] == 1

    days.at("2026-11-10T00:14")  # still the 9th's grace in Los Angeles
    assert (await days.streak())["freezes"] == 1
    days.at("2026-11-10T00:15")
    assert ((await days.streak())["current"], (await days.streak())["freezes"]) == (7, 0)
    assert dates(await history(days))[0] == ("2026-11-09", True)
    refused = await days.play("2026-11-09")  # moving west reopens nothing
    assert refused.status_code == 422
    days.at("2026-11-10T18:00")
    assert (await days.play("2026-11-10")).json()["streak"]["current"] == 8
    assert (await today(days))["played"] is True
