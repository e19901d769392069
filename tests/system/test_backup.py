"""A backup that restores (docs/operations.md, "Backups and restoring"): a database made
through the API of real servers over three dates (players, official runs, a box and its
runs, a series with rounds played, friends, practice runs) is dumped with ``pg_dump -Fc``
while the service runs, restored with ``pg_restore`` into a new database, and a server
started on it, with a Redis prefix of its own (Redis is lost with the old server: nothing
of it is backed up), answers every read the old one answers, byte for byte.

PostgreSQL's client programs must be installed (Debian's ``postgresql-client``): the test
is skipped without them, except in CI, where it fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import ServerProcess, own_database, server_environment
from tests.runs import legal_runs, score_of

DAYS = [date(2026, 5, 4) + timedelta(days=n) for n in range(3)]
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
# Who plays the official run of each date (by index into NAMES): streaks that go on,
# break and start again, and dates of different ranks.
PLAYS = {DAYS[0]: [0, 1, 2, 3, 4], DAYS[1]: [0, 1, 3, 5], DAYS[2]: [0, 2, 3, 4, 5]}
# (redeemer, owner of the friend code): Ann's friends are Bob, Cy and Dee.
FRIENDSHIPS = [(0, 1), (0, 2), (3, 0), (4, 5)]


def postgres_program(name: str) -> str | None:
    """A PostgreSQL client program: on the path, else the newest of Debian's versions."""
    found = shutil.which(name)
    if found is not None:
        return found
    installed = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return str(installed[-1]) if installed else None


@pytest.fixture(scope="module")
def programs() -> tuple[str, str]:
    dump, restore = postgres_program("pg_dump"), postgres_program("pg_restore")
    if dump is None or restore is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pg_dump and pg_restore are required in CI (postgresql-client)")
        pytest.skip("pg_dump or pg_restore is not installed (postgresql-client)")
    return dump, restore


def varied(dice: list[list[int]], count: int) -> list[list[Any]]:
    """``count`` legal runs on ``dice``, of as many different scores as they allow."""
    by_score: dict[int, list[Any]] = {}
    for moves in legal_runs(dice, 2000):
        by_score.setdefault(score_of(moves), moves)
    scores = sorted(by_score)
    return [by_score[scores[n * 7 % len(scores)]] for n in range(count)]


def noon(day: date) -> datetime:
    return datetime.combine(day, time(12), tzinfo=UTC)


class Api:
    """A client of one server: requests that must succeed."""

    def __init__(self, server: ServerProcess) -> None:
        self.http = httpx.Client(base_url=server.url, timeout=60)

    def ok(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.http.request(method, path, headers=headers, **kwargs)
        assert response.status_code in (200, 201), f"{method} {path}: {response.text}"
        return response.json()

    def close(self) -> None:
        self.http.close()


def serving(url: str, prefix: str, at: datetime) -> ServerProcess:
    env = {**server_environment(url), "SHUTBOX_REDIS_PREFIX": prefix}
    return ServerProcess(env, workers=1, frozen_at=at).start()


class Made:
    """What the players made: their tokens, the box's code and the series' code."""

    def __init__(self) -> None:
        self.tokens: list[str] = []
        self.box = ""
        self.series = ""


def first_date(api: Api, made: Made) -> None:
    """Players, friends, a box played by four of them, a series of two players and a
    computer seat with its first round played, and the date's official runs."""
    for name in NAMES:
        made.tokens.append(
            api.ok("POST", "/v1/players", json={"name": name, "time_zone": "UTC"})["token"]
        )
    for redeemer, owner in FRIENDSHIPS:
        code = api.ok("POST", "/v1/players/me/friend-code", made.tokens[owner])["code"]
        api.ok("POST", "/v1/friends", made.tokens[redeemer], json={"code": code})
    box = api.ok("POST", "/v1/boxes", made.tokens[0], json={"rules": {}})
    made.box = box["code"]
    players = [0, 2, 4, 5]
    for n, (player, moves) in enumerate(zip(players, varied(box["dice"], len(players)))):
        body = {"moves": moves, "mode": "blind" if n % 2 else "target"}
        api.ok("POST", f"/v1/boxes/{made.box}/runs", made.tokens[player], json=body)
    series = api.ok(
        "POST",
        "/v1/series",
        made.tokens[1],
        json={"format": {"kind": "rounds", "rounds": 3}, "computers": ["hard"]},
    )
    made.series = series["code"]
    api.ok("POST", f"/v1/series/{made.series}/players", made.tokens[2])
    play_series_round(api, made, 1)
    official_runs(api, made, DAYS[0])


def play_series_round(api: Api, made: Made, number: int) -> None:
    seen = api.ok("GET", f"/v1/series/{made.series}", made.tokens[1])
    assert seen["next"]["round"] == number, seen
    for player, moves in zip([1, 2], varied(seen["next"]["dice"], 2)):
        body = {"moves": moves}
        api.ok(
            "POST", f"/v1/series/{made.series}/rounds/{number}/runs", made.tokens[player], json=body
        )


def official_runs(api: Api, made: Made, day: date) -> None:
    runs = varied(api.ok("GET", f"/v1/daily/{day}")["dice"], len(NAMES))
    for player in PLAYS[day]:
        body = {"moves": runs[player]}
        api.ok("POST", f"/v1/daily/{day}/runs", made.tokens[player], json=body)


def reads(made: Made) -> list[tuple[str, str | None]]:
    """Every read whose answer a restore must keep: (path, token)."""
    paths = ["/v1/players/me", "/v1/players/me/streak", "/v1/players/me/stats"]
    paths += ["/v1/players/me/history", "/v1/players/me/practice", "/v1/players/me/today"]
    paths += ["/v1/friends", f"/v1/boxes/{made.box}", f"/v1/boxes/{made.box}?mode=target"]
    paths += [f"/v1/boxes/{made.box}/results", f"/v1/boxes/{made.box}/runs/me"]
    paths += [f"/v1/series/{made.series}"]
    for day in DAYS:
        paths += [f"/v1/daily/{day}/runs/me", f"/v1/daily/{day}/friends"]
        paths += [f"/v1/daily/{day}/leaderboard", f"/v1/daily/{day}/share"]
    every = [(path, token) for token in made.tokens for path in paths]
    every += [(f"/v1/daily/{day}/leaderboard", None) for day in DAYS]
    return every + [(f"/v1/daily/{day}", None) for day in DAYS]


def answers(server: ServerProcess, asked: list[tuple[str, str | None]]) -> list[tuple[int, bytes]]:
    with httpx.Client(base_url=server.url, timeout=60) as http:
        return [
            (response.status_code, response.content)
            for path, token in asked
            for response in [
                http.get(path, headers={"Authorization": f"Bearer {token}"} if token else {})
            ]
        ]


def test_a_dump_restored_into_a_new_database_serves_the_same_answers(
    programs: tuple[str, str], redis_prefix: str, tmp_path: Path
) -> None:
    pg_dump, pg_restore = programs
    # The restored service's Redis holds nothing of the old one's.
    old_prefix, restored_prefix = f"{redis_prefix}backup-old:", f"{redis_prefix}backup-new:"
    made = Made()
    with own_database("shutbox_backup") as old_url:
        # A server a date, its clock frozen at the date's noon (UTC): the players play it.
        server = serving(old_url, old_prefix, noon(DAYS[0]))
        try:
            api = Api(server)
            first_date(api, made)
            api.close()
        finally:
            server.stop()
        server = serving(old_url, old_prefix, noon(DAYS[1]))
        try:
            api = Api(server)
            play_series_round(api, made, 2)
            official_runs(api, made, DAYS[1])
            api.close()
        finally:
            server.stop()
        # The last date's server stays up: the dump is taken while it serves.
        server = serving(old_url, old_prefix, noon(DAYS[2]))
        try:
            api = Api(server)
            official_runs(api, made, DAYS[2])
            # The first date has closed everywhere: practice runs of it, kept.
            runs = varied(api.ok("GET", f"/v1/daily/{DAYS[0]}")["dice"], len(NAMES))
            for player in (1, 5):
                body = {"moves": runs[-1 - player]}
                api.ok("POST", f"/v1/daily/{DAYS[0]}/practice", made.tokens[player], json=body)
            api.close()
            asked = reads(made)
            before = answers(server, asked)
            dump = tmp_path / "shutbox.dump"
            subprocess.run([pg_dump, "-Fc", "--file", str(dump), old_url], check=True)
        finally:
            server.stop()

    # The old database is gone: the new one has only what the dump holds.
    with own_database("shutbox_restored") as new_url:
        restore = [pg_restore, "--no-owner", "--exit-on-error", "--dbname", new_url, str(dump)]
        subprocess.run(restore, check=True)
        restored = serving(new_url, restored_prefix, noon(DAYS[2]))
        try:
            after = answers(restored, asked)
        finally:
            restored.stop()

    assert {status for status, _ in before} <= {200, 403, 404}, {s for s, _ in before}
    assert sum(status == 200 for status, _ in before) > len(asked) // 2
    different = [
        (path, old, new)
        for (path, _token), old, new in zip(asked, before, after, strict=True)
        if old != new
    ]
    assert not different, different[:3]
