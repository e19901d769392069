"""Settings from the environment: every knob an operator turns, in one place."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import msgspec
import platformdirs

ENVIRONMENT = {
    "DATABASE_URL": "PostgreSQL URL; unset: an embedded PostgreSQL in SHUTBOX_DATA_DIR",
    "REDIS_URL": "Redis URL; unset: an in-process cache",
    "SHUTBOX_SECRET": "the dice secret (required with DATABASE_URL; embedded: in the data dir)",
    "SHUTBOX_LAUNCH_DATE": "the first Daily Dice date (default 2026-01-01)",
    "SHUTBOX_DATA_DIR": "the embedded database and its secret (default: the user data dir)",
    "SHUTBOX_HOST": "address to listen on (default 127.0.0.1)",
    "SHUTBOX_PORT": "port to listen on (default 8000)",
    "SHUTBOX_WORKERS": "server worker processes (default 1)",
    "SHUTBOX_REDIS_PREFIX": "prefix of every Redis key (default shutbox:)",
    "SHUTBOX_MAX_BODY_BYTES": "largest request body accepted (default 65536)",
    "SHUTBOX_LOG_LEVEL": "log level (default INFO)",
    "SHUTBOX_CORS_ORIGINS": "browser origins allowed by CORS, comma-separated (default: none)",
}


class SettingsError(ValueError):
    """A setting that cannot be used, with the variable it came from."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str | None = None
    redis_url: str | None = None
    secret: str | None = None
    launch_date: date = date(2026, 1, 1)
    data_dir: str = platformdirs.user_data_dir("shutbox")
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    redis_prefix: str = "shutbox:"
    max_body_bytes: int = 65536
    log_level: str = "INFO"
    cors_origins: list[str] = msgspec.field(default_factory=list)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        raw: dict[str, str | list[str]] = {}
        for variable in ENVIRONMENT:
            value = env.get(variable, "").strip()
            if value:
                field = variable.removeprefix("SHUTBOX_").lower()
                raw[field] = value.split(",") if field == "cors_origins" else value
        try:
            return msgspec.convert(raw, cls, strict=False)
        except msgspec.ValidationError as error:
            raise SettingsError(f"bad setting: {error}") from None

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser()

    @property
    def secret_bytes(self) -> bytes:
        if not self.secret:
            raise SettingsError("SHUTBOX_SECRET is not set")
        return self.secret.encode()
