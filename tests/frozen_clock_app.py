"""The service with its clock frozen at ``SHUTBOX_TEST_NOW``: a real server process
at a time the test chooses (granian imports this in every worker)."""

from __future__ import annotations

import os
from datetime import datetime

from litestar import Litestar

from service.app import create_app
from service.support.clock import FixedClock
from service.support.settings import Settings


def create() -> Litestar:
    now = datetime.fromisoformat(os.environ["SHUTBOX_TEST_NOW"])
    return create_app(Settings.from_env(), FixedClock(now))
