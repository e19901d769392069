"""The headers of the API, told in the OpenAPI document: what a client may send
(``Idempotency-Key``, ``If-None-Match``) and what it gets (``Retry-After``, ``ETag``,
``WWW-Authenticate``). Litestar has no place for them on a handler's responses, so they
are added to the generated document, from what each operation answers."""

from __future__ import annotations

from typing import Final

from litestar import Litestar
from litestar.openapi.spec import (
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Parameter,
    Schema,
)

from service.api.idempotency import KEY_MOST, KEY_PATTERN
from service.api.problems import IDEMPOTENCY_KEY_REUSED

_TEXT: Final = Schema(type=OpenAPIType.STRING)
_SECONDS: Final = Schema(type=OpenAPIType.INTEGER, minimum=1)
_RETRY_AFTER: Final = OpenAPIHeader(
    schema=_SECONDS, description="Seconds to wait before trying again.", required=True
)
_MAYBE_RETRY_AFTER: Final = OpenAPIHeader(
    schema=_SECONDS, description="Seconds to wait before trying again (the proxy's answer only)."
)
_CHALLENGE: Final = OpenAPIHeader(schema=_TEXT, description="`Bearer`.", required=True)
_ETAG: Final = OpenAPIHeader(
    schema=_TEXT, description="Send it back in If-None-Match: 304 while it holds.", required=True
)
_IDEMPOTENCY_KEY: Final = Schema(
    type=OpenAPIType.STRING, min_length=1, max_length=KEY_MOST, pattern=KEY_PATTERN
)
_CACHE_CONTROL: Final = OpenAPIHeader(schema=_TEXT, description="How long to keep the answer.")


def _sent(name: str, description: str, schema: Schema = _TEXT) -> Parameter:
    return Parameter(name=name, param_in="header", schema=schema, description=description)


def _creates(operation: Operation) -> bool:
    """Whether the operation honours Idempotency-Key: it documents its reuse."""
    response = (operation.responses or {}).get("422")
    return response is not None and IDEMPOTENCY_KEY_REUSED.schema.__name__ in str(response)


def describe_headers(app: Litestar) -> None:
    for path, item in (app.openapi_schema.paths or {}).items():
        for operation in (item.get, item.put, item.post, item.patch, item.delete):
            if operation is None:
                continue
            parameters = list(operation.parameters or [])
            if path.startswith("/v1/"):
                parameters.append(
                    _sent(
                        "Accept-Language",
                        "The language of the human text (problem titles and details, share "
                        "text, rules lines, label words): en, nb, nl or de (no and nn read nb; "
                        "regional tags their language); when it names none, the player's "
                        "stored language, else English. Codes and field names never change. "
                        "Answers with text say Content-Language.",
                    )
                )
            if _creates(operation):
                parameters.append(
                    _sent(
                        "Idempotency-Key",
                        "1 to 255 printable characters. The same key with the same body "
                        "answers the first response again (24 hours); with another body, 422.",
                        _IDEMPOTENCY_KEY,
                    )
                )
            responses = {
                status: response
                for status, response in (operation.responses or {}).items()
                if isinstance(response, OpenAPIResponse)
            }
            if "304" in responses:
                parameters.append(_sent("If-None-Match", "The ETag of the answer held."))
                responses["200"].headers = {"ETag": _ETAG, "Cache-Control": _CACHE_CONTROL}
            operation.parameters = parameters or None
            for status, response in responses.items():
                if status in ("429", "503"):
                    # Readiness answers its own 503 without; the proxy's has one.
                    own = path == "/readyz" and status == "503"
                    response.headers = {"Retry-After": _MAYBE_RETRY_AFTER if own else _RETRY_AFTER}
                if status == "401":
                    response.headers = {"WWW-Authenticate": _CHALLENGE}
