"""The service in the test process, for the page's files and messages (no browser)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from service.support.clock import FixedClock
from tests.conftest import base_settings


@pytest.fixture
async def page_client(
    database_url: str, redis_prefix: str, clock: FixedClock
) -> AsyncIterator[httpx.AsyncClient]:
    from litestar.testing import AsyncTestClient

    from service.app import create_app

    settings = base_settings(database_url, redis_prefix)
    async with AsyncTestClient(create_app(settings, clock)) as client:
        yield client
