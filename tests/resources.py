"""What the tests own and the benchmarks borrow: a free loopback port, and a throwaway
database (created empty, dropped when done, its connections closed)."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final
from urllib.parse import urlsplit, urlunsplit

import asyncpg

HOST: Final = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def database_url(admin_url: str, name: str) -> str:
    """``admin_url`` (its host, user, options) with the database ``name`` instead of its own."""
    return urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


async def _execute(url: str, statement: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def throwaway_database(admin_url: str, prefix: str) -> Iterator[str]:
    """A new empty database, ``<prefix>_<random hex>`` on the server of ``admin_url``,
    dropped when done (its connections closed): its URL."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    asyncio.run(_execute(admin_url, f'CREATE DATABASE "{name}"'))
    try:
        yield database_url(admin_url, name)
    finally:
        asyncio.run(_execute(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
