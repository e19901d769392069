"""Settings from the environment: every knob an operator turns, in one place."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Annotated, Final

import msgspec
import platformdirs

ENVIRONMENT = {
    "DATABASE_URL": "PostgreSQL URL; unset: an embedded PostgreSQL in SHUTBOX_DATA_DIR",
    "REDIS_URL": "Redis URL, or redis+cluster://host:port for a Redis Cluster; unset: in-process",
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
    "SHUTBOX_RATE_LIMIT_ADDRESS": "requests per client address, N/s, N/m or N/h, or off (1200/m)",
    "SHUTBOX_RATE_LIMIT_TOKEN": "requests per bearer token, N/s, N/m or N/h, or off (600/m)",
    "SHUTBOX_RATE_LIMIT_ACCOUNTS": "players made per client address, N/s, N/m, N/h or off (60/h)",
    "SHUTBOX_RATE_LIMIT_CLAIMS": "transfer claims per client address, N/s, N/m, N/h or off (20/h)",
    "SHUTBOX_RATE_LIMIT_FRIENDS": "friend codes redeemed per address, N/s, N/m, N/h or off (30/h)",
    "SHUTBOX_RATE_LIMIT_STORES": "requests storing rows per address, N/s, N/m, N/h or off (120/h)",
    "SHUTBOX_TRUSTED_PROXIES": "proxies whose X-Forwarded-For is believed, IPs or CIDRs (none)",
    "SHUTBOX_RATE_LIMIT_IPV6_PREFIX": "IPv6 clients share the per-address limits per /N (64)",
    "SHUTBOX_METRICS_ALLOW": "who may read /metrics: IPs or CIDRs, or none (loopback only)",
    "SHUTBOX_METRICS_TOKEN": "a bearer token that lets a scraper read /metrics from anywhere",
    "SHUTBOX_METRICS_DIR": "where workers keep their metrics files (default: TMPDIR, else /tmp)",
    "SHUTBOX_SOLVER_PROCESSES": "processes solving new rules variants, per worker (default 1)",
    "SHUTBOX_SOLVER_QUEUE": "variants waiting for a solve in a worker before 503 (default 4)",
    "SHUTBOX_SOLVER_RATE_LIMIT": "solves a client address may start, N/s, N/m, N/h or off (20/m)",
    "SHUTBOX_SOLVER_TABLES": "rules variants whose tables a worker holds in memory (default 8)",
    "SHUTBOX_SOLVER_STORED": "variants the sheets don't name kept in PostgreSQL (default 100)",
    "SHUTBOX_HEADER_TIMEOUT": "seconds a connection has to send its request headers (5)",
    "SHUTBOX_BODY_TIMEOUT": "seconds a request has to send its whole body, then 408 (10)",
    "SHUTBOX_STATEMENT_TIMEOUT": "seconds a database statement may run, unless it has its own (5)",
    "SHUTBOX_STOP_TIMEOUT": "seconds workers have after SIGTERM before they are killed (8)",
}


_PERIODS: Final = {"s": 1, "m": 60, "h": 3600}
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class Limit(msgspec.Struct, frozen=True):
    """``requests`` per ``seconds``, as written in settings: ``600/m``."""

    requests: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> Limit | None:
        """The limit written as ``N/s``, ``N/m`` or ``N/h``; None for ``off``."""
        if text.strip().lower() == "off":
            return None
        count, _, period = text.strip().partition("/")
        if not count.isdigit() or int(count) < 1 or period not in _PERIODS:
            raise ValueError(f"a rate limit is N/s, N/m, N/h or off, not {text!r}")
        return cls(int(count), _PERIODS[period])

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


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
    rate_limit_address: str = "1200/m"
    rate_limit_token: str = "600/m"
    rate_limit_accounts: str = "60/h"
    rate_limit_claims: str = "20/h"
    rate_limit_friends: str = "30/h"
    rate_limit_stores: str = "120/h"
    trusted_proxies: list[str] = msgspec.field(default_factory=list)
    rate_limit_ipv6_prefix: Annotated[int, msgspec.Meta(ge=1, le=128)] = 64
    metrics_allow: list[str] = msgspec.field(default_factory=lambda: ["127.0.0.0/8", "::1"])
    metrics_token: str | None = None
    metrics_dir: str | None = None
    solver_processes: Annotated[int, msgspec.Meta(ge=1)] = 1
    solver_queue: Annotated[int, msgspec.Meta(ge=1)] = 4
    solver_rate_limit: str = "20/m"
    solver_tables: Annotated[int, msgspec.Meta(ge=1)] = 8
    solver_stored: Annotated[int, msgspec.Meta(ge=1)] = 100
    header_timeout: float = 5.0
    body_timeout: float = 10.0
    statement_timeout: float = 5.0
    stop_timeout: Annotated[int, msgspec.Meta(ge=1, le=1800)] = 8

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        raw: dict[str, str | list[str]] = {}
        for variable in ENVIRONMENT:
            value = env.get(variable, "").strip()
            if value:
                field = variable.removeprefix("SHUTBOX_").lower()
                listed = field in {"cors_origins", "trusted_proxies", "metrics_allow"}
                raw[field] = [v.strip() for v in value.split(",")] if listed else value
        try:
            return msgspec.convert(raw, cls, strict=False)
        except msgspec.ValidationError as error:
            raise SettingsError(f"bad setting: {error}") from None

    def __post_init__(self) -> None:
        for limit in (
            self.rate_limit_address,
            self.rate_limit_token,
            self.rate_limit_accounts,
            self.rate_limit_claims,
            self.rate_limit_friends,
            self.rate_limit_stores,
            self.solver_rate_limit,
        ):
            Limit.parse(limit)  # refuse a limit that cannot be read, at start
        if not 0.001 <= self.header_timeout <= 60:  # granian takes 1 ms to 60 s
            raise ValueError("the header timeout is 0.001 to 60 seconds")
        if not 0.001 <= self.body_timeout <= 3600:
            raise ValueError("the body timeout is 0.001 to 3600 seconds")
        if self.statement_timeout < 0:
            raise ValueError("the statement timeout is 0 (none) or more seconds")
        if not 1 <= self.stop_timeout <= 1800:  # granian takes 1 to 1800 seconds
            raise ValueError("the stop timeout is 1 to 1800 seconds")
        if "{" in self.redis_prefix or "}" in self.redis_prefix:  # they'd move the hash tags
            raise ValueError("the Redis prefix may not hold { or }")
        if (
            min(self.solver_processes, self.solver_queue, self.solver_tables, self.solver_stored)
            < 1
        ):
            raise ValueError("solver processes, queue, tables and stored are each 1 or more")
        if not 1 <= self.rate_limit_ipv6_prefix <= 128:
            raise ValueError("the IPv6 prefix of the rate limits is 1 to 128 bits")
        self.metrics_networks  # noqa: B018 - refuse an address that cannot be read, at start
        if self.metrics_token is not None and len(self.metrics_token) < 16:
            raise ValueError("the metrics token has 16 characters or more")

    @property
    def address_limit(self) -> Limit | None:
        return Limit.parse(self.rate_limit_address)

    @property
    def token_limit(self) -> Limit | None:
        return Limit.parse(self.rate_limit_token)

    @property
    def solver_limit(self) -> Limit | None:
        """Solves a client address may start."""
        return Limit.parse(self.solver_rate_limit)

    @property
    def operation_limits(self) -> dict[str, Limit | None]:
        """The limits per address of the operations that have their own, by the name
        their handlers give (``OWN_LIMIT``): ``stores`` is shared by every operation that
        stores rows no other limit bounds."""
        return {
            "accounts": Limit.parse(self.rate_limit_accounts),
            "claims": Limit.parse(self.rate_limit_claims),
            "friends": Limit.parse(self.rate_limit_friends),
            "stores": Limit.parse(self.rate_limit_stores),
        }

    @property
    def metrics_networks(self) -> list[IPNetwork]:
        """The client addresses that may read /metrics without the token."""
        if [entry.lower() for entry in self.metrics_allow] == ["none"]:
            return []
        return [ipaddress.ip_network(entry, strict=False) for entry in self.metrics_allow]

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser()

    @property
    def secret_bytes(self) -> bytes:
        if not self.secret:
            raise SettingsError("SHUTBOX_SECRET is not set")
        return self.secret.encode()
