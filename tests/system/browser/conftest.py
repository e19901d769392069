"""The service in the test process, for the page's files and messages (no browser)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from service.clock import FixedClock
from service.settings import Settings


@pytest.fixture
async def page_client(
    database_url: str, redis_prefix: str, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    from litestar.testing import AsyncTestClient

    from service.app import create_app

    settings = Settings(
        database_url=database_url,
        redis_url=None,
        redis_prefix=redis_prefix,
        secret="test-secret",
        log_level="WARNING",
        rate_limit_address="off",
        rate_limit_token="off",
    )
    async with AsyncTestClient(create_app(settings, clock)) as client:
        yield client
