"""What clients can make the database hold: the bytes of a row of each table a client
grows, measured on PostgreSQL after making the rows through the app (its indexes and
TOAST counted: the growth of ``pg_total_relation_size`` over the rows made), the most
rows a day one client address can make at the default limits, and so the worst case
bytes a day per address; then the solved tables of one address asking for a new
12-tile variant at its every solve token.

    .venv/bin/python benchmarks/storage.py [--players 200] [--solves 600] [--largest 300]

``--players``: players made through the app, each with a daily run (sent with an
Idempotency-Key), a practice run, a box and a run on another's box, a series, a seat
and a run in another's series, a friend code and a friend, a transfer code.
``--solves``: variants stored through ``service.store.tables.store`` at the default
``SHUTBOX_SOLVER_STORED``, each under a key of its own (12 tiles, "3 to go" from
another start each time: what the finding's client asked for) with the packed tables
of a real 12-tile solve, with a VACUUM every 20 stores (a minute of the address's solve
budget: the work autovacuum does in a deployment, where the space of the rows let go is
used again); the table's size is printed every 100.
``--largest``: each kind of request that counts against ``SHUTBOX_RATE_LIMIT_STORES``
made so many times through the app at its largest, and series played to their end
(``largest_requests``): the bytes a request, every table together.
Prints the tables of docs/operations.md ("What clients can make the database hold").
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import secrets
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import asyncpg
import httpx
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from service.app import create_app
from service.rules import computers
from service.rules.ruleset import Rules
from service.store import tables as stored_tables
from service.store.db import create_pool, migrate
from service.support.clock import FixedClock
from service.support.settings import Limit, Settings
from tests.resources import throwaway_database
from tests.runs import legal_runs

ADMIN_URL: Final = "postgresql://postgres@127.0.0.1:5432/postgres"
NOW: Final = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TODAY: Final = "2026-11-29"
CLOSED: Final = "2026-11-27"  # a date closed everywhere: practice runs
DAY_SECONDS: Final = 86_400

TABLES: Final = (
    "players",
    "transfer_codes",
    "friend_codes",
    "friendships",
    "daily_runs",
    "streaks",
    "idempotency_keys",
    "practice_runs",
    "sequences",
    "boxes",
    "box_runs",
    "series",
    "series_players",
    "series_rounds",
    "series_runs",
    "box_target_views",
    "solver_tables_of_rules",
)


def per_day(limit: Limit | None) -> int:
    """The most a client address can do in a day under ``limit``: its burst, then the rate."""
    assert limit is not None
    return limit.requests + int(limit.rate * DAY_SECONDS)


async def sizes(connection: asyncpg.Connection) -> dict[str, tuple[int, int]]:
    """Each table's total bytes (indexes and TOAST too; every partition of daily_runs)
    and rows."""
    found = {}
    for table in TABLES:
        rows = await connection.fetchval(f"SELECT count(*) FROM {table}")
        total = await connection.fetchval(
            "SELECT sum(pg_total_relation_size(part))::bigint FROM ("
            "SELECT $1::regclass AS part UNION ALL "
            "SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = $1::regclass) parts",
            table,
        )
        found[table] = (total, rows)
    return found


async def make_rows(client: httpx.AsyncClient, players: int) -> None:
    """``players`` players and what each makes (see the docstring)."""
    made: list[dict[str, Any]] = []
    dice = (await client.get(f"/v1/daily/{TODAY}")).json()["dice"]
    closed_dice = (await client.get(f"/v1/daily/{CLOSED}")).json()["dice"]
    runs = legal_runs(dice, 1)[0]
    practice = legal_runs(closed_dice, 1)[0]
    for n in range(players):
        player = (await client.post("/v1/players", json={"name": f"Player {n}"})).json()
        auth = {"Authorization": f"Bearer {player['token']}"}
        made.append({"player": player, "auth": auth})
        keyed = {**auth, "Idempotency-Key": secrets.token_hex(16)}
        answered = await client.post(f"/v1/daily/{TODAY}/runs", json={"moves": runs}, headers=keyed)
        assert answered.status_code == 201, answered.text
        answered = await client.post(
            f"/v1/daily/{CLOSED}/practice", json={"moves": practice}, headers=auth
        )
        assert answered.status_code in (200, 201), answered.text
        box = await client.post("/v1/boxes", json={"rules": {"tiles": 12}}, headers=auth)
        assert box.status_code == 201, box.text
        made[-1]["box"] = box.json()
        series = await client.post(
            "/v1/series",
            json={"format": {"kind": "rounds", "rounds": 20}, "rules": {"tiles": 12}},
            headers=auth,
        )
        assert series.status_code == 201, series.text
        made[-1]["series"] = series.json()
        code = (await client.post("/v1/players/me/friend-code", headers=auth)).json()["code"]
        made[-1]["friend_code"] = code
        assert (await client.post("/v1/players/me/transfer", headers=auth)).status_code == 201
    for one, other in itertools.pairwise([*made, *made[:1]]):
        box = other["box"]
        moves = legal_runs(box["dice"], 1, Rules(tiles=12))[0]
        answered = await client.post(
            f"/v1/boxes/{box['code']}/runs",
            json={"moves": moves, "mode": "blind"},
            headers=one["auth"],
        )
        assert answered.status_code == 201, answered.text
        code = other["series"]["code"]
        joined = await client.post(f"/v1/series/{code}/players", headers=one["auth"])
        assert joined.status_code in (200, 201), joined.text
        moves = legal_runs(other["series"]["next"]["dice"], 1, Rules(tiles=12))[0]
        answered = await client.post(
            f"/v1/series/{code}/rounds/1/runs", json={"moves": moves}, headers=one["auth"]
        )
        assert answered.status_code == 201, answered.text
        redeemed = await client.post(
            "/v1/friends", json={"code": other["friend_code"]}, headers=one["auth"]
        )
        assert redeemed.status_code in (200, 201), redeemed.text


def unlimited(url: str) -> Settings:
    """The service's settings here: warnings only, every rate limit off."""
    return Settings(
        database_url=url,
        redis_prefix=f"storage-{secrets.token_hex(4)}:",
        secret="storage-benchmark",
        log_level="WARNING",
        **{f"rate_limit_{name}": "off" for name in Settings().operation_limits},
        rate_limit_address="off",
        rate_limit_token="off",
        solver_rate_limit="off",
    )


async def table_rows(url: str, players: int) -> dict[str, float]:
    """Bytes a row of each table, made through the app."""
    app = create_app(unlimited(url), FixedClock(NOW))
    async with app.lifespan():
        connection = await asyncpg.connect(url)
        try:
            before = await sizes(connection)
            transport = httpx.ASGITransport(app=app, client=("198.51.100.7", 50000))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                await make_rows(client, players)
            after = await sizes(connection)
        finally:
            await connection.close()
    return {
        table: (after[table][0] - before[table][0]) / (after[table][1] - before[table][1])
        for table in TABLES
        if after[table][1] > before[table][1]
    }


LONG_NAME: Final = "\U0001d54f" * 40
"""A name as long as a name gets: 40 characters of 4 bytes."""
SERIES_TILES: Final = (12, 9, 6, 4)
"""The series played to their end: on 12 tiles, some 30 rounds (the worst total
reaches 1000 soonest); on fewer, more rounds of smaller runs, 200 at most."""
SERIES_PLAYED: Final = 4
"""Series played to their end on each of ``SERIES_TILES``."""
LONG_KEY: Final = "k" * 255
"""An Idempotency-Key as long as one gets."""


async def largest_requests(url: str, count: int) -> dict[str, float]:
    """The bytes each kind of request that counts against ``SHUTBOX_RATE_LIMIT_STORES``
    adds to the database, every table together, at its largest, and those of the
    requests the other limits bound (a player and its codes, a friend): names and keys as long
    as they get, 12 tiles, every creating request with an Idempotency-Key (its answer
    kept too), a series of 16 seats; ``count`` of each. And the runs of series of one
    player and 15 hard computers (who play every round as it is issued), the player
    playing as they do, to the series' end (``to_score`` 1000), on each of
    ``SERIES_TILES``: a run's answer holds the standings, so its bytes grow with the
    rounds played, and the figure is their mean over whole series."""
    settings = unlimited(url)
    twelve = Rules(tiles=12)
    found: dict[str, float] = {}
    app = create_app(settings, FixedClock(NOW))
    async with app.lifespan():
        connection = await asyncpg.connect(url)
        transport = httpx.ASGITransport(app=app, client=("198.51.100.8", 50000))
        client = httpx.AsyncClient(transport=transport, base_url="http://t")
        try:

            async def total() -> int:
                tables = (await sizes(connection)).items()
                return sum(size for table, (size, _) in tables if not table.startswith("solver"))

            async def post(path: str, headers: dict[str, str], body: Any = None) -> Any:
                keyed = {**headers, "Idempotency-Key": LONG_KEY[:-8] + secrets.token_hex(4)}
                answered = await client.post(path, json=body, headers=keyed)
                assert answered.status_code in (200, 201), answered.text
                return answered.json()

            async def measured(name: str, requests: Callable[[], Awaitable[int]]) -> None:
                before = await total()
                made = await requests()
                found[name] = (await total() - before) / made

            players: list[dict[str, str]] = []
            codes: list[str] = []

            async def create_players() -> int:
                for _ in range(count):
                    made = await post("/v1/players", {}, {"name": LONG_NAME})
                    players.append({"Authorization": f"Bearer {made['token']}"})
                return count

            async def friend_codes() -> int:
                for auth in players:
                    codes.append((await post("/v1/players/me/friend-code", auth))["code"])
                return count

            async def transfer_codes() -> int:
                for auth in players:
                    await post("/v1/players/me/transfer", auth)
                return count

            async def redeem() -> int:
                for auth, code in zip(players, codes[1:] + codes[:1]):
                    await post("/v1/friends", auth, {"code": code})
                return count

            # What the other limits bound: players (and each one's codes), friends.
            await measured("POST /v1/players", create_players)
            await measured("POST /v1/players/me/friend-code (the first)", friend_codes)
            await measured("POST /v1/players/me/transfer (the first)", transfer_codes)
            await measured("POST /v1/friends", redeem)
            dice = (await client.get(f"/v1/daily/{TODAY}")).json()["dice"]
            closed = (await client.get(f"/v1/daily/{CLOSED}")).json()["dice"]
            boxes: list[Any] = []

            async def official() -> int:
                run = legal_runs(dice, 1)[0]
                for auth in players:
                    await post(f"/v1/daily/{TODAY}/runs", auth, {"moves": run})
                return count

            async def practice() -> int:
                run = legal_runs(closed, 1)[0]
                for auth in players:
                    await post(f"/v1/daily/{CLOSED}/practice", auth, {"moves": run})
                return count

            async def box() -> int:
                for auth in players:
                    boxes.append(await post("/v1/boxes", auth, {"rules": {"tiles": 12}}))
                return count

            async def owners_runs() -> int:
                for auth, made in zip(players, boxes):
                    run = legal_runs(made["dice"], 1, twelve)[0]
                    await post(f"/v1/boxes/{made['code']}/runs", auth, {"moves": run})
                return count

            async def target_views() -> int:
                for auth, made in zip(players, boxes[1:] + boxes[:1]):
                    seen = await client.get(f"/v1/boxes/{made['code']}?mode=target", headers=auth)
                    assert "target" in seen.json(), seen.text
                return count

            async def box_runs() -> int:
                for auth, made in zip(players, boxes[1:] + boxes[:1]):
                    run = legal_runs(made["dice"], 1, twelve)[0]
                    await post(f"/v1/boxes/{made['code']}/runs", auth, {"moves": run})
                return count

            series: list[Any] = []

            async def create_series() -> int:
                new = {"format": {"kind": "rounds", "rounds": 20}, "rules": {"tiles": 12}}
                new["computers"] = ["hard"] * 14
                for auth in players:
                    series.append(await post("/v1/series", auth, new))
                return count

            async def join() -> int:
                for auth, made in zip(players, series[1:] + series[:1]):
                    await post(f"/v1/series/{made['code']}/players", auth)
                return count

            async def series_of(tiles: int) -> list[Any]:
                new = {"format": {"kind": "to_score", "target": 1000}, "rules": {"tiles": tiles}}
                new["computers"] = ["hard"] * 15
                return [await post("/v1/series", players[n], new) for n in range(SERIES_PLAYED)]

            async def played(tiles: int, made: list[Any]) -> int:
                rules = Rules(tiles=tiles)
                tables = stored_tables.unpack(rules, stored_tables.solve_packed({"tiles": tiles}))
                rounds = []
                for auth, one in zip(players, made):
                    while one["status"] != "finished":
                        coming = one["next"]
                        dice = [tuple(roll) for roll in coming["dice"]]
                        best = computers.play(
                            tables, computers.HARD, rules.start_position, dice, ""
                        )
                        run = [move.as_json() for move in best.moves]
                        path = f"/v1/series/{one['code']}/rounds/{coming['round']}/runs"
                        one = (await post(path, auth, {"moves": run}))["series"]
                    rounds.append(one["rounds_complete"])
                print(f"  series of 16 seats on {tiles} tiles played to their end: {rounds} rounds")
                return sum(rounds)

            # What SHUTBOX_RATE_LIMIT_STORES bounds.
            await measured("POST /v1/daily/{date}/runs", official)
            await measured("POST /v1/daily/{date}/practice", practice)
            await measured("POST /v1/boxes", box)
            await measured("POST /v1/boxes/{code}/runs (the owner's)", owners_runs)
            await measured("GET /v1/boxes/{code}?mode=target", target_views)
            await measured("POST /v1/boxes/{code}/runs", box_runs)
            await measured("POST /v1/series (14 computers)", create_series)
            await measured("POST /v1/series/{code}/players", join)
            for tiles in SERIES_TILES:
                made = await series_of(tiles)
                name = f"POST /v1/series/{{code}}/rounds/{{round}}/runs ({tiles} tiles)"
                await measured(name, lambda tiles=tiles, made=made: played(tiles, made))
        finally:
            await client.aclose()
            await connection.close()
    return found


async def solver_churn(url: str, solves: int) -> tuple[int, list[tuple[int, int, int]]]:
    """One address's new 12-tile variants stored one after another at the default bound:
    the packed bytes of one, and (stored, rows, table bytes) every 100."""
    kept = Settings().solver_stored
    first = Rules(tiles=12, first_must_close=3, start=(3,))
    packed = stored_tables.solve_packed(msgspec.to_builtins(first))
    others = [t for t in range(1, 13) if t != 3]
    starts = (
        tuple(sorted([3, *(t for i, t in enumerate(others) if mask >> i & 1)]))
        for mask in range(1 << len(others))
    )
    pool = await create_pool(url)
    seen = []
    try:
        async with pool.acquire() as connection:
            await migrate(connection)
        for n, start in enumerate(itertools.islice(starts, solves), 1):
            rules = Rules(tiles=12, first_must_close=3, start=start)
            await stored_tables.store(pool, rules, packed, kept=kept)
            if n % 20 == 0:  # as autovacuum would, a minute of the address's solves
                await pool.execute("VACUUM solver_tables_of_rules")
            if n % 100 == 0:
                rows = await pool.fetchval("SELECT count(*) FROM solver_tables_of_rules")
                size = await pool.fetchval(
                    "SELECT pg_total_relation_size('solver_tables_of_rules')"
                )
                seen.append((n, rows, size))
                print(f"  {n} stored: {rows} rows, {size / 1e6:.1f} MB")
    finally:
        await pool.close()
    return len(packed), seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--solves", type=int, default=600)
    parser.add_argument("--largest", type=int, default=300)
    options = parser.parse_args()
    defaults = Settings()
    general = per_day(defaults.address_limit)
    accounts = per_day(defaults.operation_limits["accounts"])
    friends = per_day(defaults.operation_limits["friends"])
    stores = per_day(defaults.operation_limits["stores"])
    solves = per_day(defaults.solver_limit)
    print(
        f"a day per address at the default limits: {general:,} requests, {accounts:,} "
        f"players, {friends:,} friend codes redeemed, {stores:,} requests that store, "
        f"{solves:,} solves"
    )
    with throwaway_database(ADMIN_URL, "shutbox_storage") as url:
        row_bytes = asyncio.run(table_rows(url, options.players))
    print("\ntable | bytes a row (measured)")
    for table, size in row_bytes.items():
        print(f"{table} | {size:,.0f}")
    with throwaway_database(ADMIN_URL, "shutbox_storage") as url:
        largest = asyncio.run(largest_requests(url, options.largest))
    print(f"\nrequest that stores | bytes at its largest | {stores:,} a day per address")
    for request, size in largest.items():
        print(f"{request} | {size:,.0f} | {size * stores / 1e6:.1f} MB")
    with throwaway_database(ADMIN_URL, "shutbox_storage") as url:
        packed, seen = asyncio.run(solver_churn(url, options.solves))
    last = seen[-1][2] if seen else 0
    print(
        f"\nsolver_tables_of_rules: {packed:,} bytes packed a 12-tile variant; naive "
        f"{solves:,} a day = {solves * packed / 1e9:.1f} GB; bounded: {last / 1e6:.1f} MB "
        f"after {options.solves} stores ({defaults.solver_stored} kept)"
    )


if __name__ == "__main__":
    main()
