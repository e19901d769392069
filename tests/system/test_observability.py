"""The alerting rules and the dashboard an operator is given (``deploy/prometheus``,
``deploy/grafana``) use only metrics the service exports, and the metrics they alert on
say what happens: a replaced worker, the pool's use, the database and Redis.

The metric names are read from a running app's ``/metrics``: a metric renamed in the
service fails here. ``promtool`` (Debian's ``prometheus`` package), where it is
installed, checks the rules and the dashboard's queries; ``scripts/test`` runs the
rules' own unit tests.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
ALERT_TESTS = ROOT / "deploy" / "prometheus" / "alerts.test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "shutbox.json"

PAGED = {
    "ShutboxServerErrors",
    "ShutboxOfficialRunSlow",
    "ShutboxNotReady",
    "ShutboxDatabasePoolSaturated",
    "ShutboxRedisDown",
    "ShutboxRateLimitSurge",
    "ShutboxWorkerReplaced",
}
"""What the issue asks an operator to be told of (#44): each is a rule, tested."""

# What a PromQL expression names that is no metric: functions, aggregations, keywords.
_PROMQL_WORDS = {
    *[
        "sum",
        "min",
        "max",
        "avg",
        "count",
        "stddev",
        "stdvar",
        "topk",
        "bottomk",
        "quantile",
        "count_values",
        "group",
    ],
    *[
        "rate",
        "irate",
        "increase",
        "delta",
        "idelta",
        "deriv",
        "changes",
        "resets",
        "histogram_quantile",
        "abs",
        "ceil",
    ],
    *[
        "floor",
        "round",
        "clamp",
        "clamp_min",
        "clamp_max",
        "absent",
        "absent_over_time",
        "time",
        "vector",
        "scalar",
    ],
    *["label_replace", "label_join", "sort", "sort_desc", "timestamp", "predict_linear"],
    *["avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time"],
    *["last_over_time", "quantile_over_time"],
    *[
        "and",
        "or",
        "unless",
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "bool",
        "offset",
        "inf",
        "nan",
    ],
}
_RANGE_VARIABLES = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h"}


def alert_rules() -> list[dict[str, Any]]:
    document = yaml.safe_load(ALERTS.read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def dashboard_queries() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            queries.append(re.sub(r"label_values\((\w+).*\)", r"\1", variable["definition"]))
    return queries


def as_promql(query: str) -> str:
    """A dashboard's query as Prometheus reads it, Grafana's variables given values."""
    for variable, value in _RANGE_VARIABLES.items():
        query = query.replace(variable, value)
    return query.replace("$job", ".+")


def metric_names(expression: str) -> set[str]:
    """The metric names a PromQL expression reads: what is left of it without strings,
    label matchers, ranges, grouping clauses, functions, keywords and numbers."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expression)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    words = set(re.findall(r"[A-Za-z_:][\w:]*", text))
    return {word for word in words if word not in _PROMQL_WORDS}


def paths_matched(expression: str) -> set[str]:
    """The route templates an expression names with ``path="..."``."""
    return set(re.findall(r'\bpath!?=~?"([^"]*)"', expression))


def exported(metrics_text: str) -> set[str]:
    """Every series name the text can hold, by the family's type: a counter's ``_total``,
    a histogram's buckets, sum and count (a family with no sample yet included)."""
    suffixes = {
        "counter": ("_total", "_created"),
        "histogram": ("_bucket", "_sum", "_count", "_created"),
        "summary": ("", "_sum", "_count", "_created"),
    }
    names = set()
    for family in text_string_to_metric_families(metrics_text):
        names.update(family.name + suffix for suffix in suffixes.get(family.type, ("",)))
    return names


def everything_used() -> list[tuple[str, str]]:
    """(where, expression) of every rule and every dashboard query."""
    used = [(f"rule {rule['alert']}", rule["expr"]) for rule in alert_rules()]
    used += [(f"panel query {query!r}", as_promql(query)) for query in dashboard_queries()]
    return used


# --- the rules and the dashboard read what the service exports ------------------------


def test_every_alert_asked_for_is_a_rule_with_a_unit_test() -> None:
    rules = {rule["alert"]: rule for rule in alert_rules()}
    assert set(rules) == PAGED
    for name, rule in rules.items():
        assert rule["labels"]["severity"] in ("page", "ticket"), name
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], name
    tests = yaml.safe_load(ALERT_TESTS.read_text())
    assert tests["rule_files"] == [ALERTS.name]
    for name in PAGED:  # each fires somewhere in the tests, and is quiet somewhere
        cases = [
            case
            for test in tests["tests"]
            for case in test.get("alert_rule_test", [])
            if case["alertname"] == name
        ]
        assert any(case["exp_alerts"] for case in cases), f"{name} never fires in a test"
        assert any(not case["exp_alerts"] for case in cases), f"{name} is never quiet in one"


async def test_every_metric_a_rule_or_panel_reads_is_exported(client: httpx.AsyncClient) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 200
    names = exported(response.text)
    app: Any = client.app  # type: ignore[attr-defined]
    templates = {route.path_format for route in app.routes}
    for where, expression in everything_used():
        used = metric_names(expression)
        assert used, f"{where} reads no metric"
        missing = used - names
        assert not missing, f"{where} reads {sorted(missing)}, which /metrics does not have"
        unknown = paths_matched(expression) - templates
        assert not unknown, f"{where} names {sorted(unknown)}, which no route is"


def test_the_names_are_found_in_an_expression() -> None:
    """The reading of names this file relies on, on what the rules write."""
    assert metric_names(
        'histogram_quantile(0.99, sum by (job, le) (rate(x_bucket{path="/a{b}"}[5m]))) > 0.5'
    ) == {"x_bucket"}
    assert metric_names("(a_total - b > 0) and increase(a_total[15m]) > 0") == {"a_total", "b"}
    assert metric_names('sum by (instance) (c{state="busy"}) / on (job) d') == {"c", "d"}
    assert paths_matched('x{path="/v1/daily/{day}/runs", status!="5"} + y{path!="/q"}') == {
        "/v1/daily/{day}/runs",
        "/q",
    }


@pytest.mark.skipif(shutil.which("promtool") is None, reason="no promtool (Debian's prometheus)")
def test_promtool_takes_the_rules_and_the_dashboards_queries(tmp_path: Path) -> None:
    """The rules as Prometheus loads them, and each dashboard query as a recording rule:
    a query Prometheus cannot parse fails."""
    queries = [as_promql(query) for query in dashboard_queries()]
    recorded = {
        "groups": [
            {
                "name": "dashboard",
                "rules": [
                    {"record": f"panel:{at}", "expr": query} for at, query in enumerate(queries)
                ],
            }
        ]
    }
    (tmp_path / "dashboard.yml").write_text(yaml.safe_dump(recorded))
    for rules in (ALERTS, tmp_path / "dashboard.yml"):
        checked = subprocess.run(
            ["promtool", "check", "rules", str(rules)], capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr


# --- the metrics the rules alert on ----------------------------------------------------


def scraped(url: str) -> dict[str, float]:
    """The unlabelled samples and the pool's, of a server's /metrics (from loopback)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return {
        sample.name + "".join(f"{{{value}}}" for value in sample.labels.values()): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if family.name.startswith(("shutbox_worker", "shutbox_db_", "shutbox_workers"))
        or family.name in ("shutbox_database_up", "shutbox_redis_up")
    }


@pytest.fixture
def two_worker_server(server_env: dict[str, str]) -> Iterator[ServerProcess]:
    server = ServerProcess(server_env, workers=2).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_replaced_worker_is_counted(two_worker_server: ServerProcess) -> None:
    """Two workers started; one killed (as the kernel kills a process out of memory) and
    replaced: three starts of two workers, ShutboxWorkerReplaced's ``starts - workers``."""
    import psutil

    server = two_worker_server
    assert server.process is not None
    before = scraped(server.url)
    assert before["shutbox_workers"] == 2
    assert before["shutbox_worker_starts_total"] == 2
    assert before["shutbox_database_up"] == 1
    assert before["shutbox_db_pool_max"] > 0
    workers = {child.pid for child in psutil.Process(server.process.pid).children()}
    assert len(workers) == 2
    os.kill(min(workers), signal.SIGKILL)
    for _ in range(600):  # a new worker's start-up: a few seconds, more on a busy host
        now = {child.pid for child in psutil.Process(server.process.pid).children()}
        if len(now) == 2 and now != workers:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the killed worker was not replaced")
    for _ in range(300):  # until the new worker answers too
        after = scraped(server.url)
        if after["shutbox_worker_starts_total"] == 3:
            break
        time.sleep(0.1)
    assert after["shutbox_worker_starts_total"] == 3, after
    assert after["shutbox_workers"] == 2


@pytest.mark.parametrize(
    ("redis_mode", "redis_up"), [("redis", 1), ("redis-unreachable", 0)], indirect=["redis_mode"]
)
async def test_the_pool_and_the_dependencies_are_in_the_metrics(
    client: httpx.AsyncClient, redis_up: int
) -> None:
    families = {
        family.name: family
        for family in text_string_to_metric_families((await client.get("/metrics")).text)
    }
    pool = {s.labels["state"]: s.value for s in families["shutbox_db_pool_connections"].samples}
    (bound,) = families["shutbox_db_pool_max"].samples
    assert set(pool) == {"busy", "idle"} and pool["busy"] >= 0 and pool["idle"] >= 0
    assert 1 <= pool["busy"] + pool["idle"] <= bound.value == 10
    (database,) = families["shutbox_database_up"].samples
    assert database.value == 1
    (redis,) = families["shutbox_redis_up"].samples
    assert redis.value == redis_up


@pytest.mark.parametrize("redis_mode", ["no-redis"], indirect=True)
async def test_no_redis_is_no_redis_sample(client: httpx.AsyncClient) -> None:
    families = {
        family.name: family
        for family in text_string_to_metric_families((await client.get("/metrics")).text)
    }
    assert families["shutbox_database_up"].samples[0].value == 1
    assert not families["shutbox_redis_up"].samples
