"""The committed OpenAPI document is the one the app generates."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import httpx
import pytest

from service.api import problems
from service.api.problems import MEDIA_TYPE
from service.app import create_app
from service.cli import openapi_document
from service.rules.errors import IllegalRun
from service.support.settings import Settings
from tests.conftest import ROOT


def test_the_committed_document_matches_the_app() -> None:
    committed = (ROOT / "openapi" / "openapi.json").read_bytes()
    assert committed == openapi_document(), "run `shutbox openapi` and commit the result"


@pytest.fixture
def app_made_before(settings: Settings) -> None:
    """An app of this process made before the test's: the document is made once a process
    (``service.app``) and the next app uses it."""
    create_app(settings)


async def test_the_next_app_of_a_process_serves_the_committed_document(
    app_made_before: None, client: httpx.AsyncClient
) -> None:
    committed = json.loads((ROOT / "openapi" / "openapi.json").read_bytes())
    served = await client.get("/schema/openapi.json")
    assert served.status_code == 200
    assert served.json() == committed
    # The query names each operation takes are the app's own, read from that document.
    assert (await client.get("/v1/rules?junk=1")).status_code == 400


def test_every_operation_is_documented() -> None:
    document = json.loads(openapi_document())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            assert operation.get("operationId"), where
            assert operation.get("summary"), where
            problems = [s for s in operation["responses"] if s.startswith(("4", "5"))]
            read = [p for p in operation.get("parameters", []) if p["in"] in ("path", "query")]
            if read or operation.get("requestBody"):
                assert "400" in problems, where  # input can be malformed
            if path.startswith("/v1/"):
                sent = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
                assert "Accept-Language" in sent, where
            for status in problems:
                content = operation["responses"][status]["content"]
                if path != "/readyz":  # its 503 is its own answer: what is down
                    assert "application/problem+json" in content, where


@cache
def _document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(openapi_document())
    return document


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    document = _document()
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if path != "/readyz"  # its 503 is its own answer, not a problem
    ]


def _problem_types(operation: dict[str, Any], status: str) -> set[str]:
    """The problem types an operation documents for a status."""
    if status not in operation["responses"]:
        return set()
    document = _document()
    schema = operation["responses"][status]["content"]["application/problem+json"]["schema"]
    refs = [s["$ref"] for s in schema.get("oneOf", [schema])]
    components = document["components"]["schemas"]
    return {components[ref.rsplit("/", 1)[1]]["properties"]["type"]["const"] for ref in refs}


def test_every_problem_schema_names_its_type_and_status() -> None:
    for method, path, operation in _operations():
        for status in (s for s in operation["responses"] if s.startswith(("4", "5"))):
            for kind in _problem_types(operation, status):
                assert problems.PROBLEMS[kind.removeprefix("/problems/")].status == int(status), (
                    f"{method} {path} documents {kind} under {status}"
                )


def test_what_every_operation_can_answer_is_documented() -> None:
    for method, path, operation in _operations():
        where = f"{method} {path}"
        answers = set(operation["responses"])
        if operation.get("requestBody"):
            assert {"400", "408", "413", "415"} <= answers, where
        if operation.get("security"):
            assert "/problems/unauthorized" in _problem_types(operation, "401"), where
        # The proxy limits every operation (the service, all but ``NOT_LIMITED`` ones).
        assert "429" in answers, where
        # A query parameter given twice, or one the operation does not list: every one.
        assert "/problems/invalid-request" in _problem_types(operation, "400"), where
        assert "a query parameter given twice" in operation["responses"]["400"]["description"]
        for status in answers & {"429", "503"}:
            if path.startswith("/v1/"):
                assert "Retry-After" in operation["responses"][status]["headers"], where
        if "401" in answers:
            assert "WWW-Authenticate" in operation["responses"]["401"]["headers"], where
        sent = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        creates = "/problems/idempotency-key-reused" in _problem_types(operation, "422")
        assert ("Idempotency-Key" in sent) == creates, where
        if path.startswith("/v1/") and path != "/v1/rules":  # the database is behind them
            assert "/problems/database-unavailable" in _problem_types(operation, "503"), where


def test_every_illegal_run_is_a_documented_problem_with_its_move() -> None:
    def causes(kind: type[IllegalRun]) -> list[type[IllegalRun]]:
        return [kind, *(c for sub in kind.__subclasses__() for c in causes(sub))]

    documented = {
        kind
        for method, path, operation in _operations()
        if path in ("/v1/analyze", "/v1/daily/{day}/runs", "/v1/boxes/{code}/runs")
        for kind in _problem_types(operation, "422")
    }
    for cause in causes(IllegalRun)[1:]:
        kind = problems.PROBLEMS[cause.code]
        assert kind.status == 422 and kind.uri in documented, cause
        assert kind.members is not None and "move_index" in kind.members.__struct_fields__


def test_every_problem_a_handler_raises_is_documented_somewhere() -> None:
    documented = {
        kind
        for _, _, operation in _operations()
        for status in operation["responses"]
        if status.startswith(("4", "5"))
        for kind in _problem_types(operation, status)
    }
    # Answers of the framework itself (unknown path, method) or of nobody's request.
    fallbacks = {"forbidden", "not-found", "method-not-allowed", "conflict", "rules-violation"}
    fallbacks |= {"client-closed-request"}  # the 500 is documented: the proxy's (PROXY)
    for slug, kind in problems.PROBLEMS.items():
        assert (kind.uri in documented) != (slug in fallbacks), slug


def _every_operation() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in _document()["paths"].items()
        for method, operation in item.items()
    ]


def test_the_proxys_own_answers_are_documented_on_every_operation() -> None:
    """What deploy/nginx.conf answers of its own is a problem of the registry, with its
    status and title, documented under that status on every operation it fronts (all of
    them: nginx reads a body, or a URI and headers, before any operation is chosen), but
    for its 405 (to a TRACE, which is no operation) and its 404 (at its answers' URIs)."""
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    answers = re.findall(r"return (\d{3}) '(\{.*\})';", config)
    assert answers, "deploy/nginx.conf answers no problem of its own any more"
    on_no_operation = set()
    for status, body in answers:
        sent = json.loads(body)
        kind = problems.PROBLEMS[sent["type"].removeprefix(problems.TYPE_PREFIX)]
        assert (kind.uri, kind.status, kind.title) == (sent["type"], int(status), sent["title"])
        assert sent["status"] == int(status) and sent["detail"], body
        assert set(sent) == {"type", "title", "status", "detail"}, body  # no members
        if kind not in problems.PROXY:
            on_no_operation.add(kind)
            continue
        for method, path, operation in _every_operation():
            response = operation["responses"].get(status)
            assert response is not None and MEDIA_TYPE in response["content"], (method, path)
            schema = response["content"][MEDIA_TYPE]["schema"]
            refs = {s["$ref"] for s in schema.get("oneOf", [schema])}
            assert f"#/components/schemas/{kind.schema.__name__}" in refs, (method, path, kind)
    assert on_no_operation == {problems.NOT_FOUND, problems.METHOD_NOT_ALLOWED}


def test_every_operation_states_who_may_call_it() -> None:
    for method, path, operation in _every_operation():
        assert "security" in operation, f"{method} {path}"  # [] where anyone may
        if operation["security"] == []:
            assert "401" not in operation["responses"], f"{method} {path}"


def test_every_schema_property_is_described() -> None:
    """Every property of every object schema in the committed document says what it is,
    so that a client developer reads it in the generated client."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    undescribed: list[str] = []

    def visit(node: object, where: str) -> None:
        if isinstance(node, list):
            for index, value in enumerate(node):
                visit(value, f"{where}/{index}")
        if not isinstance(node, dict):
            return
        properties = node.get("properties")
        if isinstance(properties, dict):
            undescribed.extend(
                f"{where}/properties/{name}"
                for name, schema in properties.items()
                if not schema.get("description", "").strip()
            )
        for key, value in node.items():
            visit(value, f"{where}/{key}")

    visit(document, "#")
    assert undescribed == []


def test_an_object_is_described_as_itself_not_as_a_field_referring_to_it() -> None:
    """Litestar gives a component the description of the first field that refers to it;
    the document describes each struct by its docstring instead (or not at all)."""
    schemas = _document()["components"]["schemas"]
    for name, schema in schemas.items():
        for field, property_ in schema.get("properties", {}).items():
            ref = property_.get("$ref", "").removeprefix("#/components/schemas/")
            if ref and property_.get("description"):
                said = schemas[ref].get("description")
                assert said != property_["description"], f"{ref} is described as {name}.{field}"
