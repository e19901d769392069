"""A unit test needs no database, no Redis and no app: asking for one fails, naming
where the test belongs."""

from __future__ import annotations

import pytest


def _not_here(what: str) -> None:
    pytest.fail(f"a test under tests/unit uses no {what}: it belongs under tests/integration")


@pytest.fixture
def database_url() -> None:
    _not_here("database")


@pytest.fixture
def redis_prefix() -> None:
    _not_here("Redis")


@pytest.fixture
def client() -> None:
    _not_here("app")
