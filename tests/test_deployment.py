"""The deployment files agree with the settings and with each other.

``Dockerfile`` and ``docker-compose.yml`` are read as text and YAML: Docker is not needed.
Every variable the compose file gives the API must be one ``service.settings`` reads,
the service names in its URLs must be the compose services, the ports must line up,
and the API must stay scalable (no container name, no fixed host port).
"""

from __future__ import annotations

import fnmatch
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

from service.settings import ENVIRONMENT, Settings
from service.store import embedded

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
API, POSTGRES, REDIS = "api", "postgres", "redis"
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
    assert not unknown, f"not read by service.settings: {sorted(unknown)}"


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


def test_the_api_listens_where_it_is_published_and_checked() -> None:
    port = int(environment(API)["SHUTBOX_PORT"])
    assert [container for _, container in port_entries(API)] == [port]
    checked = urls_in(service(API)["healthcheck"]["test"])
    assert checked == [(port, "/readyz")]


def test_the_api_is_scalable() -> None:
    api = service(API)
    assert "container_name" not in api, "a container name allows one replica only"
    assert "build" in api
    for published, _ in port_entries(API):
        assert published is None or "-" in published, f"fixed host port {published}"


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


def test_postgres_keeps_its_data_in_a_named_volume() -> None:
    sources = [str(volume).partition(":")[0] for volume in service(POSTGRES).get("volumes", [])]
    assert any(source in (compose().get("volumes") or {}) for source in sources), sources


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
    assert "[dev]" not in runs


def test_the_image_does_not_run_as_root() -> None:
    users = arguments("USER")
    assert users, "no USER: the container runs as root"
    user = users[-1].partition(":")[0]
    assert user not in ("root", "0")
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
