"""The deployment files agree with the settings and with each other.

``Dockerfile``, ``docker-compose.yml`` and ``deploy/nginx.conf`` are read as text and
YAML: neither Docker nor nginx is needed. Every variable the compose file gives the API
must be one ``service.support.settings`` reads, the service names in its URLs must be the
compose services, the ports must line up, the API must stay scalable (no container
name, no published port) behind the proxy, the only published port, whose limits hold
slow and idle clients off, and the API must believe X-Forwarded-For from that proxy only.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import json
import re
import shlex
import tomllib
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from service.store import embedded
from service.support.settings import ENVIRONMENT, Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
API, POSTGRES, REDIS, PROXY = "api", "postgres", "redis", "proxy"
NGINX_CONF = "/etc/nginx/nginx.conf"
SECRET = "a-secret-from-the-host"


# --- docker-compose.yml ---------------------------------------------------------------


@cache
def compose() -> dict[str, Any]:
    document = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(document, dict), "docker-compose.yml is not a mapping"
    return document


def service(name: str) -> dict[str, Any]:
    services = compose().get("services")
    assert isinstance(services, dict) and name in services, f"no service {name!r}"
    found = services[name]
    assert isinstance(found, dict)
    return found


def environment(name: str) -> dict[str, str]:
    """A service's environment as written (before interpolation), in either syntax."""
    raw = service(name).get("environment", {})
    if isinstance(raw, list):
        pairs = [str(item).partition("=") for item in raw]
        return {key: value for key, _, value in pairs}
    assert isinstance(raw, dict)
    return {str(key): "" if value is None else str(value) for key, value in raw.items()}


_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|(?P<bare>\w+)|\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\})"
)


class MissingVariable(LookupError):
    """A ``${NAME:?message}`` whose variable the host does not set."""


def interpolate(value: str, host: dict[str, str]) -> str:
    """Compose's variable substitution: ``$$``, ``$NAME``, ``${NAME}``, ``${NAME:-default}``,
    ``${NAME-default}``, ``${NAME:?error}`` and ``${NAME?error}``."""

    def substitute(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["bare"] or match["name"]
        op, arg = match["op"], match["arg"] or ""
        unset = name not in host or (op is not None and op.startswith(":") and not host[name])
        if op is not None and op.endswith("?") and unset:
            raise MissingVariable(f"{name}: {arg}")
        if op is not None and op.endswith("-") and unset:
            return arg
        return host.get(name, "")

    return _VARIABLE.sub(substitute, value)


def api_environment(host: dict[str, str]) -> dict[str, str]:
    return {key: interpolate(value, host) for key, value in environment(API).items()}


def port_entries(name: str) -> list[tuple[str | None, int]]:
    """(host port or range, or None when Docker picks it; container port) of each entry."""
    entries = []
    for entry in service(name).get("ports", []):
        if isinstance(entry, dict):
            published = str(entry.get("published") or "")
            entries.append((published or None, int(entry["target"])))
            continue
        text = str(entry).partition("/")[0]  # no protocol
        before, colon, container = text.rpartition(":")
        published = before.rpartition(":")[2] if colon else ""  # no host address
        entries.append((published or None, int(container)))
    return entries


def urls_in(command: object) -> list[tuple[int, str]]:
    """(port, path) of every http URL in a healthcheck command, in either syntax."""
    text = " ".join(map(str, command)) if isinstance(command, list) else str(command)
    found = re.findall(r"https?://[^\s/:'\"]+(?::(\d+))?(/[^\s'\")]*)?", text)
    return [(int(port) if port else 80, path or "/") for port, path in found]


# --- deploy/nginx.conf -----------------------------------------------------------------

Directive = tuple[str, list[str], list[Any]]
"""An nginx directive: its name, its arguments, and the directives of its block."""

_NGINX_TOKEN = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|#[^\n]*|[{};]|[^\s{};'"#]+""")


def proxy_config_path() -> Path:
    """The file of the repo the proxy mounts as its nginx.conf."""
    for volume in service(PROXY).get("volumes", []):
        source, _, rest = str(volume).partition(":")
        if rest.partition(":")[0] == NGINX_CONF:
            return ROOT / source
    raise AssertionError(f"the proxy mounts nothing at {NGINX_CONF}")


@cache
def nginx() -> list[Directive]:
    """The proxy's nginx.conf as nested directives (comments dropped, quotes kept)."""
    tokens = [t for t in _NGINX_TOKEN.findall(proxy_config_path().read_text()) if t[0] != "#"]

    def block(at: int) -> tuple[list[Directive], int]:
        found: list[Directive] = []
        words: list[str] = []
        while at < len(tokens):
            token, at = tokens[at], at + 1
            if token == ";":
                found.append((words[0], words[1:], []))
                words = []
            elif token == "{":
                children, at = block(at)
                found.append((words[0], words[1:], children))
                words = []
            elif token == "}":
                assert not words, f"unterminated directive {words}"
                return found, at
            else:
                words.append(token)
        assert not words, f"unterminated directive {words}"
        return found, at

    parsed, _ = block(0)
    return parsed


def directives(within: list[Directive], name: str) -> list[Directive]:
    return [found for found in within if found[0] == name]


def one(within: list[Directive], name: str) -> Directive:
    found = directives(within, name)
    assert len(found) == 1, f"{len(found)} {name} directives, not one"
    return found[0]


def http_block() -> list[Directive]:
    return one(nginx(), "http")[2]


def proxied_location() -> list[Directive]:
    """The ``location /`` of the one server block: where every request is proxied."""
    (server,) = [found[2] for found in directives(http_block(), "server")]
    (location,) = [found[2] for found in directives(server, "location") if found[1] == ["/"]]
    return location


def setting(name: str) -> list[str]:
    """A directive's arguments where the proxied location sees it: that location's own,
    else its server's, else the http block's."""
    (server,) = [found[2] for found in directives(http_block(), "server")]
    for within in (proxied_location(), server, http_block()):
        found = directives(within, name)
        if found:
            assert len(found) == 1, f"{name} set twice in one block"
            return found[0][1]
    raise AssertionError(f"{name} is not set")


def seconds(text: str) -> float:
    """An nginx time: ``5s``, ``500ms``, ``1m``, ``1h`` or bare seconds."""
    found = re.fullmatch(r"(\d+)(ms|s|m|h)?", text)
    assert found, f"not an nginx time: {text}"
    return int(found[1]) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[found[2]]


def size_in_bytes(text: str) -> int:
    found = re.fullmatch(r"(\d+)([kKmM])?", text)
    assert found, f"not an nginx size: {text}"
    return int(found[1]) * {"k": 1024, "m": 1024 * 1024, None: 1}[found[2] and found[2].lower()]


def upstream_servers() -> list[tuple[str, int]]:
    """(host, port) of the servers the proxied location passes requests to."""
    (target,) = setting("proxy_pass")
    url = urlsplit(target)
    assert url.scheme == "http", target
    upstreams = {found[1][0]: found[2] for found in directives(http_block(), "upstream")}
    if url.hostname not in upstreams:
        return [(str(url.hostname), url.port or 80)]
    servers = []
    for _, arguments, _ in directives(upstreams[url.hostname], "server"):
        host, _, port = arguments[0].rpartition(":")
        servers.append((host, int(port)))
    return servers


# --- Dockerfile -----------------------------------------------------------------------


@cache
def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage, continuation lines joined."""
    logical, current = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        logical.append(current + stripped)
        current = ""
    assert not current, "the Dockerfile ends in a continuation line"
    parsed = []
    for text in logical:
        keyword, _, arguments = text.partition(" ")
        parsed.append((keyword.upper(), arguments.strip()))
    starts = [i for i, (keyword, _) in enumerate(parsed) if keyword == "FROM"]
    assert starts, "no FROM"
    return parsed[starts[-1] :]


def arguments(keyword: str) -> list[str]:
    return [args for found, args in instructions() if found == keyword]


def argv(arguments: str) -> list[str]:
    """The command of an exec-form (JSON) or shell-form instruction."""
    if arguments.startswith("["):
        command = json.loads(arguments)
        assert isinstance(command, list) and all(isinstance(part, str) for part in command)
        return command
    return shlex.split(arguments)


def exposed_ports() -> set[int]:
    return {int(port.partition("/")[0]) for args in arguments("EXPOSE") for port in args.split()}


def cmd() -> list[str]:
    commands = arguments("CMD")
    assert commands, "no CMD"
    return argv(commands[-1])


def option(command: list[str], name: str) -> str | None:
    for i, part in enumerate(command):
        if part == name and i + 1 < len(command):
            return command[i + 1]
        if part.startswith(f"{name}="):
            return part.partition("=")[2]
    return None


def copied() -> dict[str, PurePosixPath]:
    """Each source copied from the build context → where it lands in the image."""
    workdir, landed = PurePosixPath("/"), {}
    for keyword, args in instructions():
        if keyword == "WORKDIR":
            workdir = workdir / args
        elif keyword in ("COPY", "ADD"):
            parts = argv(args)
            if any(part.startswith("--from") for part in parts):
                continue  # from another stage, not the context
            *sources, destination = [part for part in parts if not part.startswith("--")]
            for source in sources:
                name = source.strip("/").removeprefix("./")
                target = workdir / destination
                # A directory's contents land in the destination; a file lands in a
                # destination directory (trailing slash) or is renamed to it.
                if destination.endswith("/") and (ROOT / name).is_file():
                    target = target / PurePosixPath(name).name
                landed[name] = target
    return landed


# --- compose: the API's settings -------------------------------------------------------


def test_every_variable_the_api_gets_is_a_setting() -> None:
    unknown = set(environment(API)) - set(ENVIRONMENT)
    assert not unknown, f"not read by service.support.settings: {sorted(unknown)}"


def test_the_settings_parse_from_the_api_environment() -> None:
    env = api_environment({"SHUTBOX_SECRET": SECRET})
    settings = Settings.from_env(env)
    assert settings.database_url == env["DATABASE_URL"] is not None
    assert settings.redis_url == env["REDIS_URL"] is not None
    assert settings.secret == SECRET
    assert settings.host == "0.0.0.0"
    assert settings.port == int(env["SHUTBOX_PORT"]) == 8000
    assert settings.workers == int(env["SHUTBOX_WORKERS"]) == 2
    # A database is given: no embedded PostgreSQL is started in the container.
    assert embedded.resolve(settings) is settings


def test_the_secret_comes_from_the_host_and_is_required() -> None:
    assert re.fullmatch(r"\$\{SHUTBOX_SECRET:\?.+\}", environment(API)["SHUTBOX_SECRET"])
    with pytest.raises(MissingVariable, match="SHUTBOX_SECRET"):
        api_environment({})
    with pytest.raises(MissingVariable, match="SHUTBOX_SECRET"):
        api_environment({"SHUTBOX_SECRET": ""})


def test_database_url_points_at_the_postgres_service() -> None:
    url = urlsplit(api_environment({"SHUTBOX_SECRET": SECRET})["DATABASE_URL"])
    database = environment(POSTGRES)
    assert url.scheme in ("postgresql", "postgres")
    assert url.hostname == POSTGRES
    assert (url.port or 5432) == 5432
    assert url.username == database.get("POSTGRES_USER", "postgres")
    assert url.password == database["POSTGRES_PASSWORD"]
    assert url.path == f"/{database.get('POSTGRES_DB', url.username)}"


def test_redis_url_points_at_the_redis_service() -> None:
    url = urlsplit(api_environment({"SHUTBOX_SECRET": SECRET})["REDIS_URL"])
    assert url.scheme == "redis"
    assert url.hostname == REDIS
    assert (url.port or 6379) == 6379


# --- compose: ports, scaling, health ---------------------------------------------------


def test_the_api_listens_where_it_is_proxied_and_checked() -> None:
    port = int(environment(API)["SHUTBOX_PORT"])
    assert [int(str(exposed).partition("/")[0]) for exposed in service(API)["expose"]] == [port]
    checked = urls_in(service(API)["healthcheck"]["test"])
    assert checked == [(port, "/readyz")]
    assert upstream_servers() == [(API, port)]


def test_the_api_is_scalable() -> None:
    api = service(API)
    assert "container_name" not in api, "a container name allows one replica only"
    assert "build" in api
    for published, _ in port_entries(API):
        assert published is None or "-" in published, f"fixed host port {published}"


def test_the_api_stops_within_its_grace_period() -> None:
    """Compose sends SIGTERM, then SIGKILL after ``stop_grace_period`` (10 s if unset):
    SHUTBOX_STOP_TIMEOUT ends a second before it at least, so the service stops by
    itself, a stuck worker killed by granian rather than the container by Docker
    (tests/system/test_faults.py stops the service so)."""
    written = str(service(API).get("stop_grace_period", "10s"))
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", written)
    assert parts is not None and written, f"a grace period of minutes and seconds: {written}"
    grace = int(parts[1] or 0) * 60 + int(parts[2] or 0)
    settings = Settings.from_env(api_environment({"SHUTBOX_SECRET": SECRET}))
    assert settings.stop_timeout + 1 <= grace, (settings.stop_timeout, grace)


@pytest.mark.parametrize(
    ("name", "probe"), [(POSTGRES, "pg_isready"), (REDIS, "redis-cli")], ids=[POSTGRES, REDIS]
)
def test_the_api_waits_for_healthy_backing_services(name: str, probe: str) -> None:
    healthcheck = service(name).get("healthcheck")
    assert isinstance(healthcheck, dict) and not healthcheck.get("disable", False)
    test = healthcheck["test"]
    command = test if isinstance(test, list) else [test]
    assert command[0] not in ("NONE",) and probe in " ".join(command)
    depends_on = service(API).get("depends_on")
    assert isinstance(depends_on, dict), "depends_on needs the long form to wait for health"
    assert depends_on[name]["condition"] == "service_healthy"


def test_the_api_runs_on_a_read_only_root_with_a_tmpfs_at_tmp() -> None:
    """Nothing in the API's container can be changed but /tmp, where the workers keep
    their metrics files (tests/system/test_read_only_root.py starts the service so)."""
    api = service(API)
    assert api.get("read_only") is True
    tmpfs = api.get("tmpfs", [])
    entries = [tmpfs] if isinstance(tmpfs, str) else tmpfs
    mounted = [str(entry).partition(":")[0] for entry in entries]
    assert "/tmp" in mounted
    settings = Settings.from_env(api_environment({"SHUTBOX_SECRET": SECRET}))
    if settings.metrics_dir is not None:
        assert PurePosixPath(settings.metrics_dir).is_relative_to("/tmp"), settings.metrics_dir
    assert "TMPDIR" not in environment(API), "the temporary directory is the tmpfs"


def test_the_proxy_runs_on_a_read_only_root_with_tmpfs_where_nginx_writes() -> None:
    """The proxy's container can change nothing but its temporary files (the bodies it
    buffers, /var/cache/nginx) and its pid file (/var/run); its logs go to the image's
    standard output and error, its configuration is mounted read-only."""
    proxy = service(PROXY)
    assert proxy.get("read_only") is True
    tmpfs = proxy.get("tmpfs", [])
    entries = [tmpfs] if isinstance(tmpfs, str) else tmpfs
    mounted = {str(entry).partition(":")[0] for entry in entries}
    assert {"/var/cache/nginx", "/var/run"} <= mounted, mounted
    for log in ("access_log", "error_log"):
        (found,) = directives(http_block(), log)
        assert found[1][0].startswith("/var/log/nginx/"), "the image links these to stdout, stderr"
    (pid,) = directives(nginx(), "pid") or [("pid", ["/var/run/nginx.pid"], [])]
    assert PurePosixPath(pid[1][0]).is_relative_to("/var/run"), pid


def test_postgres_keeps_its_data_in_a_named_volume() -> None:
    sources = [str(volume).partition(":")[0] for volume in service(POSTGRES).get("volumes", [])]
    assert any(source in (compose().get("volumes") or {}) for source in sources), sources


# --- compose: the reverse proxy in front ------------------------------------------------


def networks_of(name: str) -> set[str]:
    joined = service(name).get("networks", ["default"])
    return set(joined) if isinstance(joined, (list, dict)) else {str(joined)}


def subnets(network: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    config = ((compose().get("networks") or {}).get(network) or {}).get("ipam", {})
    return [ipaddress.ip_network(entry["subnet"]) for entry in config.get("config", [])]


def test_the_proxy_is_the_only_published_port() -> None:
    for name in compose()["services"]:
        if name != PROXY:
            assert not service(name).get("ports"), f"{name} is published past the proxy"
    ((published, container),) = port_entries(PROXY)
    assert published is not None and published.isdigit(), "one fixed address for clients"
    assert [str(container)] == setting("listen")[:1]


def test_the_proxy_runs_the_config_of_the_repo() -> None:
    image = service(PROXY)["image"].partition(":")[0]
    assert image == "nginx", "the official image"
    volume = next(str(v) for v in service(PROXY)["volumes"] if NGINX_CONF in str(v))
    assert volume.endswith(":ro"), "the proxy cannot change its own config"
    assert proxy_config_path().is_file()
    depends_on = service(PROXY).get("depends_on")
    assert isinstance(depends_on, dict) and depends_on[API]["condition"] == "service_healthy"


def version_of(text: str) -> tuple[int, ...]:
    assert re.fullmatch(r"\d+(\.\d+)*", text), f"not a version number: {text!r}"
    return tuple(int(part) for part in text.split("."))


def test_the_proxy_image_is_as_new_as_its_config_says_it_needs() -> None:
    """``nginx.conf`` states the nginx it needs; the image compose names is that or newer
    (a numbered tag: ``latest`` or ``mainline`` could be anything), and the statement
    covers what the file uses."""
    config = proxy_config_path().read_text()
    stated = re.findall(r"^# Minimum nginx version: (\d+(?:\.\d+)*)\b", config, re.M)
    assert len(stated) == 1, "nginx.conf does not say once which nginx it needs"
    minimum = version_of(stated[0])
    _, _, tag = service(PROXY)["image"].partition(":")
    # 1.28 (or 1.28-alpine) is the newest 1.28.x: 1.28.0 at the least.
    oldest = version_of(tag.partition("-")[0]) + (0,) * 3
    assert oldest >= minimum, f"the proxy runs nginx {tag}; nginx.conf needs {stated[0]}"
    servers = directives(one(http_block(), "upstream")[2], "server")
    if any("resolve" in arguments for _, arguments, _ in servers):
        assert minimum >= (1, 27, 3), "an upstream server's resolve needs nginx 1.27.3"


def test_the_proxy_holds_slow_and_idle_clients_off() -> None:
    # Requests in flight per client address, in a zone keyed by that address.
    zones = {}
    for _, arguments, _ in directives(http_block(), "limit_conn_zone"):
        key, zone = arguments
        name, _, size = zone.removeprefix("zone=").partition(":")
        zones[name] = key
        assert size_in_bytes(size) > 0
    zone, limit = setting("limit_conn")
    assert zones.get(zone) == "$binary_remote_addr", "limit_conn is per client address"
    assert 1 <= int(limit) <= 1000
    assert setting("limit_conn_status") == ["429"]
    # A client has seconds, not minutes, for its headers, for its body, and idle.
    assert seconds(setting("client_header_timeout")[0]) <= 10
    assert seconds(setting("client_body_timeout")[0]) <= 30
    assert seconds(setting("send_timeout")[0]) <= 30
    assert seconds(setting("keepalive_timeout")[0]) <= 75
    assert 1 <= int(setting("keepalive_requests")[0]) <= 10_000
    # Bodies are read whole before they are sent on, no larger than the API takes.
    assert setting("proxy_request_buffering") == ["on"]
    largest = Settings.from_env(api_environment({"SHUTBOX_SECRET": SECRET})).max_body_bytes
    assert size_in_bytes(setting("client_max_body_size")[0]) <= largest


def test_the_proxy_passes_every_request_to_the_api_replicas() -> None:
    port = int(environment(API)["SHUTBOX_PORT"])
    assert upstream_servers() == [(API, port)]
    # Resolved again and again, so that replicas added by --scale are used too.
    (upstream,) = directives(http_block(), "upstream")
    (server,) = directives(upstream[2], "server")
    assert "resolve" in server[1] and setting("resolver")
    assert networks_of(PROXY) & networks_of(API), "the proxy cannot reach the API"


def test_the_api_believes_x_forwarded_for_from_the_proxy_only() -> None:
    (forwarded,) = [
        arguments[1:]
        for _, arguments, _ in directives(proxied_location(), "proxy_set_header")
        if arguments[0].lower() == "x-forwarded-for"
    ]
    assert forwarded in (["$proxy_add_x_forwarded_for"], ["$remote_addr"])
    settings = Settings.from_env(api_environment({"SHUTBOX_SECRET": SECRET}))
    trusted = [ipaddress.ip_network(proxy, strict=False) for proxy in settings.trusted_proxies]
    assert trusted, "SHUTBOX_TRUSTED_PROXIES is not set: every client shares the proxy's address"
    shared = networks_of(PROXY) & networks_of(API)
    proxy_ranges = [subnet for network in shared for subnet in subnets(network)]
    assert proxy_ranges, "the proxy's network has no fixed subnet to trust"
    for network in shared:  # nobody else sits where the API believes what it is told
        members = {name for name in compose()["services"] if network in networks_of(name)}
        assert members == {PROXY, API}, f"{sorted(members - {PROXY, API})} on {network}"
    for subnet in trusted:
        assert any(
            subnet.version == ours.version and subnet.subnet_of(ours)  # type: ignore[arg-type]
            for ours in proxy_ranges
        ), f"{subnet} is trusted, but is not the proxy's network"
    for ours in proxy_ranges:
        assert any(
            ours.version == subnet.version and ours.subnet_of(subnet)  # type: ignore[arg-type]
            for subnet in trusted
        ), f"the proxy's network {ours} is not trusted"


def test_the_metrics_are_not_served_through_the_proxy() -> None:
    """Nobody the proxy passes on reads /metrics, the proxy itself neither: only the
    container's own loopback, or a scraper with the token the host sets."""
    from service.api.front.ratelimit import RateLimiter
    from service.api.ops import may_scrape
    from service.store.cache import Cache

    token = "a-token-from-the-host-for-scrapers"

    def scope(peer: str, *headers: tuple[bytes, bytes]) -> Any:
        return {"type": "http", "client": (peer, 40000), "headers": list(headers)}

    shared = networks_of(PROXY) & networks_of(API)
    proxies = [str(next(subnet.hosts())) for network in shared for subnet in subnets(network)]
    assert proxies
    client = (b"x-forwarded-for", b"203.0.113.9")
    bearer = (b"authorization", f"Bearer {token}".encode())
    for given in (False, True):
        host = {"SHUTBOX_SECRET": SECRET, **({"SHUTBOX_METRICS_TOKEN": token} if given else {})}
        settings = Settings.from_env(api_environment(host))
        limiter = RateLimiter(Cache(None, "t:"), None, None, settings.trusted_proxies)
        assert may_scrape(scope("127.0.0.1"), settings, limiter), "not even from inside"
        for proxy in proxies:
            assert not may_scrape(scope(proxy), settings, limiter), f"the proxy {proxy} reads"
            assert not may_scrape(scope(proxy, client), settings, limiter), "its clients read"
            assert may_scrape(scope(proxy, client, bearer), settings, limiter) == given


# --- Dockerfile -----------------------------------------------------------------------


def test_the_image_runs_shutbox_serve_on_the_exposed_port() -> None:
    command = cmd()
    assert command[:2] == ["shutbox", "serve"]
    assert not arguments("ENTRYPOINT"), "an ENTRYPOINT would turn CMD into its arguments"
    assert option(command, "--host") == "0.0.0.0"
    assert option(command, "--workers") is None, "workers come from SHUTBOX_WORKERS"
    port = option(command, "--port")
    assert port is not None and exposed_ports() == {int(port)}
    assert int(port) == int(environment(API)["SHUTBOX_PORT"])


def test_the_image_checks_its_health_with_python() -> None:
    (healthcheck,) = arguments("HEALTHCHECK")
    match = re.fullmatch(r"((?:--\S+\s+)*)CMD\s+(.+)", healthcheck, re.S)
    assert match, f"not a HEALTHCHECK ... CMD: {healthcheck}"
    command = argv(match[2])
    assert command[0] in ("python", "python3"), "no curl in the slim image"
    assert urls_in(command) == [(port, "/healthz") for port in exposed_ports()]


def test_the_image_keeps_the_repo_layout() -> None:
    landed = copied()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    readme = [project["readme"]] if isinstance(project.get("readme"), str) else []
    for needed in ("pyproject.toml", *readme, "service", "sql"):
        assert needed in landed, f"{needed} is not copied"
    # service/store/db.py finds the migrations at ../../sql from itself.
    assert landed["service"].name == "service" and landed["sql"].name == "sql"
    assert landed["service"].parent == landed["sql"].parent
    assert landed["pyproject.toml"].parent == landed["service"].parent


def test_the_image_installs_the_runtime_dependencies_only() -> None:
    runs = " ".join(arguments("RUN"))
    assert re.search(r"pip install .*-e \.(\s|$)", runs), "the project is not installed editable"
    assert "[dev]" not in runs and "requirements-dev.lock" not in runs


def test_the_image_installs_the_locked_versions() -> None:
    """The build tools' lock, then the runtime lock, every file's hash checked, then the
    project with nothing more, built with the locked setuptools: the image runs the
    versions the tests ran, not the newest of the day it is built."""
    commands = [shlex.split(part) for args in arguments("RUN") for part in args.split("&&")]
    installs = [command[2:] for command in commands if command[:2] == ["pip", "install"]]
    locked = {words[words.index("-r") + 1]: words for words in installs if "-r" in words}
    assert set(locked) == {"requirements-build.lock", "requirements.lock"}, locked
    for lock, words in locked.items():
        assert "--require-hashes" in words, lock
        assert copied()[lock].parent == copied()["pyproject.toml"].parent
    (project,) = [words for words in installs if "-e" in words]
    assert "--no-deps" in project, "the project's install would add unlocked versions"
    assert "--no-build-isolation" in project, "the build would fetch setuptools unpinned"
    order = [installs.index(locked["requirements-build.lock"])]
    order += [installs.index(locked["requirements.lock"]), installs.index(project)]
    assert order == sorted(order)


def test_the_build_tools_are_pinned() -> None:
    """pip and everything pyproject.toml's [build-system] requires, at one version each
    with its hashes (scripts/lock writes requirements-build.lock)."""
    pinned = dict(
        re.findall(
            r"^([A-Za-z0-9_.-]+)==(\S+) \\$", (ROOT / "requirements-build.lock").read_text(), re.M
        )
    )
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for needed in ("pip", *(re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0] for req in build)):
        assert needed.lower() in {name.lower() for name in pinned}, f"{needed} is not pinned"


def test_the_image_does_not_run_as_root() -> None:
    users = arguments("USER")
    assert users, "no USER: the container runs as root"
    # By number, so that the runtime can tell it is not root without reading
    # /etc/passwd (Kubernetes' runAsNonRoot), and hadolint's DL3066 holds.
    user, _, group = users[-1].partition(":")
    assert user.isdigit() and group.isdigit(), f"USER {users[-1]}: not uid:gid"
    assert int(user) != 0 and int(group) != 0
    runs = " ".join(arguments("RUN"))
    assert re.search(rf"useradd .*--uid {user}\b", runs), f"no user {user} is made"
    assert re.search(rf"(groupadd .*--gid {group}\b|useradd .*--gid {group}\b)", runs)
    last_user = max(i for i, (keyword, _) in enumerate(instructions()) if keyword == "USER")
    last_cmd = max(i for i, (keyword, _) in enumerate(instructions()) if keyword == "CMD")
    assert last_user < last_cmd


def test_the_image_sets_only_known_settings() -> None:
    variables: dict[str, str] = {}
    for args in arguments("ENV"):
        parts = shlex.split(args)
        if "=" not in parts[0]:  # the old ``ENV NAME value`` form
            variables[parts[0]] = " ".join(parts[1:])
        else:
            variables.update(part.partition("=")[::2] for part in parts)
    ours = {name for name in variables if name.startswith("SHUTBOX_")}
    assert ours <= set(ENVIRONMENT), sorted(ours - set(ENVIRONMENT))
    if "SHUTBOX_PORT" in variables:
        assert exposed_ports() == {int(variables["SHUTBOX_PORT"])}


def test_the_build_context_has_what_the_image_copies() -> None:
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for source in copied():
        excluded = [pattern for pattern in patterns if fnmatch.fnmatch(source, pattern.strip("/"))]
        assert not excluded, f"{source} is excluded by {excluded}"
    for heavy in (".git", ".venv", "tests"):
        assert heavy in patterns, f"{heavy} is sent to the Docker daemon"
