"""The committed OpenAPI document is the one the app generates."""

from __future__ import annotations

import json

from service.cli import openapi_document
from tests.conftest import ROOT


def test_the_committed_document_matches_the_app() -> None:
    committed = (ROOT / "openapi" / "openapi.json").read_bytes()
    assert committed == openapi_document(), "run `shutbox openapi` and commit the result"


def test_every_operation_is_documented() -> None:
    document = json.loads(openapi_document())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            where = f"{method.upper()} {path}"
            assert operation.get("operationId"), where
            assert operation.get("summary"), where
            problems = [s for s in operation["responses"] if s.startswith(("4", "5"))]
            if operation.get("parameters") or operation.get("requestBody"):
                assert "400" in problems, where  # input can be malformed
            for status in problems:
                content = operation["responses"][status]["content"]
                assert "application/problem+json" in content, where
