"""``shutbox serve`` with no hot routes: every request taken the framework's way.

    python -m benchmarks.framework_way --host H --port P --workers N

For ``http_bench.py --way framework``: what the service serves without answering the
hot requests before the framework (``service/api/front/hot.py``), to measure what that
buys. The app factory is wrapped before ``shutbox serve`` starts granian, whose workers
are forked from this process and so build their app with the wrapper.
"""

from __future__ import annotations

import sys
from typing import Any

import service.app
from service.cli import main

_create_app = service.app.create_app


def create_app(*args: Any, **kwargs: Any) -> Any:
    app = _create_app(*args, **kwargs)
    app.hot_routes = ()
    return app


if __name__ == "__main__":
    service.app.create_app = create_app  # type: ignore[assignment]
    sys.exit(main(["serve", *sys.argv[1:]]))
