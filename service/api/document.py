"""The OpenAPI document's last touches, on what Litestar generates from the handlers, so
that client generators (openapi-python-client, openapi-typescript) and linters (Redocly)
take it as it is: public operations say so, one-member unions are their member, every
object schema says what it is, and the proxy's own answers are on every operation. And
what the handlers document with: the problems an operation answers (``documented``,
from the one registry, ``service.api.problems``), the answers they encode themselves."""

from __future__ import annotations

import dataclasses
import inspect
from collections import defaultdict
from collections.abc import Iterator
from typing import Any, Final, Union, get_args, get_origin

import msgspec
from litestar import Litestar, Response
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIResponse, Reference, Schema

from service.api import problems
from service.api.bodies import request_body_types

_COMPOSITIONS: Final = ("one_of", "any_of", "all_of")
_REF_PREFIX: Final = "#/components/schemas/"


def finish_document(app: Litestar) -> None:
    """Run last, once the request bodies and headers are described."""
    document = app.openapi_schema
    for item in (document.paths or {}).values():
        for operation in (item.get, item.put, item.post, item.patch, item.delete):
            if operation is not None and operation.security is None:
                # No requirement said is "anyone may call it", not "unknown".
                operation.security = []
    _answer_of_the_proxy_on_readiness(app)
    _one_member_unions_as_their_member(document)
    _described_by_their_docstrings(app)
    _tags_described(app)


def _answer_of_the_proxy_on_readiness(app: Litestar) -> None:
    """``/readyz`` answers its own 503 (what is down, as JSON); with no replica up, the
    proxy in front answers its problem instead. Both under one status: two media types."""
    readiness = (app.openapi_schema.paths or {})["/readyz"].get
    assert readiness is not None and readiness.responses is not None
    response = readiness.responses["503"]
    assert isinstance(response, OpenAPIResponse) and response.content is not None
    kinds = [kind for kind in problems.PROXY if kind.status == 503]
    schemas = [Reference(ref=_REF_PREFIX + kind.schema.__name__) for kind in kinds]
    schema = schemas[0] if len(schemas) == 1 else Schema(one_of=list(schemas))
    response.content[problems.MEDIA_TYPE] = OpenAPIMediaType(schema=schema)
    names = ", ".join(f"`{kind.schema.__name__}`" for kind in kinds)
    response.description += f"; or the proxy's, with no replica up (problem details: {names})"


def _one_member_unions_as_their_member(node: Any) -> Any:
    """A ``oneOf`` (or ``anyOf``, ``allOf``) of one schema, as Litestar makes of an optional
    member (``X | UnsetType``) or a described reference, is that schema with the
    wrapper's words: a reference keeps its description beside ``$ref`` (OpenAPI 3.1)."""
    if isinstance(node, list):
        return [_one_member_unions_as_their_member(value) for value in node]
    if isinstance(node, dict):
        return {key: _one_member_unions_as_their_member(value) for key, value in node.items()}
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    for field in dataclasses.fields(node):
        value = getattr(node, field.name)
        if value is not None:
            setattr(node, field.name, _one_member_unions_as_their_member(value))
    if not isinstance(node, Schema):
        return node
    members = [name for name in _COMPOSITIONS if getattr(node, name) is not None]
    if len(members) != 1 or len(getattr(node, members[0])) != 1:
        return node
    (member,) = getattr(node, members[0])
    said = {
        field.name: getattr(node, field.name)
        for field in dataclasses.fields(node)
        if field.name != members[0] and getattr(node, field.name) is not None
    }
    if isinstance(member, Reference):
        if set(said) - {"description"}:
            return node  # a reference takes no constraints beside it: kept as it is
        return dataclasses.replace(member, description=said.get("description", member.description))
    return dataclasses.replace(member, **said)


def _described_by_their_docstrings(app: Litestar) -> None:
    """Each object schema made from a struct is described by the struct's docstring, or
    not at all: Litestar gives a component the description of the first field that
    refers to it, which says what the field is, not what the object is."""
    components = app.openapi_schema.components.schemas or {}
    structs = _structs_of(app)
    for name, schema in components.items():
        if isinstance(schema, Schema) and name in structs:
            doc = structs[name].__doc__
            schema.description = " ".join(inspect.cleandoc(doc).split()) if doc else None


def _tags_described(app: Litestar) -> None:
    """The tag of a tagged struct (msgspec's ``tag_field``, ``kind`` say) tells which member
    of a union an object is: Litestar leaves it undescribed."""
    components: dict[str, Any] = app.openapi_schema.components.schemas or {}
    for name, struct in _structs_of(app).items():
        config = struct.__struct_config__
        schema = components.get(name)
        if config.tag_field is None or schema is None:
            continue
        # Litestar keeps the schema msgspec makes of a tagged struct as it is: a dict.
        properties = schema.get("properties") if isinstance(schema, dict) else schema.properties
        tag = (properties or {}).get(config.tag_field)
        said = f"Which kind of object this is: `{config.tag}`."
        if isinstance(tag, dict) and not tag.get("description"):
            tag["description"] = said
        elif isinstance(tag, Schema) and not tag.description:
            tag.description = said


def _structs_of(app: Litestar) -> dict[str, type[msgspec.Struct]]:
    """Every struct the app's operations take or answer, nested ones too, by name (a
    name two structs share is left out: which one a component is can't be told)."""
    found: dict[str, type[msgspec.Struct]] = {}
    shared: set[str] = set()
    seen: set[type[msgspec.Struct]] = set()

    def visit(kind: msgspec.inspect.Type) -> None:
        if isinstance(kind, msgspec.inspect.StructType):
            if kind.cls in seen:  # met before (a struct may hold itself)
                return
            seen.add(kind.cls)
            name = kind.cls.__name__
            if name in found:
                shared.add(name)
            found[name] = kind.cls
        for value in msgspec.structs.asdict(kind).values():
            for inner in value if isinstance(value, tuple) else (value,):
                if isinstance(inner, msgspec.inspect.Type):
                    visit(inner)
                elif isinstance(inner, msgspec.inspect.Field):
                    visit(inner.type)

    for answered in _types_of(app):
        # A union of problems is no type msgspec takes (structs without a tag): each alone.
        for kind in get_args(answered) if get_origin(answered) is Union else (answered,):
            try:
                visit(msgspec.inspect.type_info(kind))
            except TypeError:  # not a type msgspec encodes (bytes, a page)
                continue
    return {name: cls for name, cls in found.items() if name not in shared}


def _types_of(app: Litestar) -> Iterator[Any]:
    yield from request_body_types(app)
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if not isinstance(handler, HTTPRouteHandler) or not handler.include_in_schema:
                continue
            answered = handler.parsed_fn_signature.return_type.annotation
            if get_origin(answered) is Response:
                answered = get_args(answered)[0]
            yield answered
            for spec in (handler.responses or {}).values():
                yield spec.data_container


_DESCRIPTIONS: Final = {
    400: "Malformed request (on every operation: a query parameter given twice, or one the "
    "operation does not list; or a request the proxy in front cannot read)",
    401: "Missing or bad bearer token",
    403: "Not visible to this player yet",
    404: "Unknown resource",
    408: "The request did not arrive in time: the connection is closed",
    409: "Conflicts with stored state",
    413: "Request body too large (the service's limit, or the proxy's)",
    414: "The URI is too long (the proxy's limit)",
    415: "The body is not sent as application/json",
    422: "Breaks the game's rules",
    429: "Rate limited, by the service or by the proxy in front: retry after the seconds in "
    "Retry-After",
    431: "The request headers are too large (the proxy's limit)",
    500: "Server error (of the service, or of the proxy in front)",
    503: "A dependency is down or busy (the database, the solver; behind the proxy, every "
    "replica): retry after the seconds in Retry-After",
}


def documented(
    *kinds: problems.ProblemType | tuple[problems.ProblemType, ...],
) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problems an operation can answer (and those of every
    operation: a strange query string's, and the proxy's, which fronts every operation):
    per status, the union of their schemas, told apart by ``type``."""
    by_status: dict[int, list[type[msgspec.Struct]]] = defaultdict(list)
    for entry in (*kinds, problems.QUERY, problems.PROXY):
        for kind in entry if isinstance(entry, tuple) else (entry,):
            if kind.schema not in by_status[kind.status]:
                by_status[kind.status].append(kind.schema)
    responses = {}
    for status in sorted(by_status):
        schemas = by_status[status]
        names = ", ".join(f"`{s.__name__}`" for s in schemas)
        union: Any = Union[tuple(schemas)]  # noqa: UP007 - of types known at run time
        responses[status] = ResponseSpec(
            data_container=union if len(schemas) > 1 else schemas[0],
            description=f"{_DESCRIPTIONS[status]} (problem details: {names})",
            media_type=problems.MEDIA_TYPE,
            generate_examples=False,
        )
    return responses


def created(result: type[msgspec.Struct], description: str) -> ResponseSpec:
    """An answer whose handler sends encoded bytes itself: a creating POST's 201 (as an
    idempotency key keeps them), or a stored run's 200 as it was first sent."""
    return ResponseSpec(data_container=result, description=description, generate_examples=False)


def resubmitted(result: type[msgspec.Struct]) -> ResponseSpec:
    """The 200 of a creating POST whose identical request was accepted before."""
    return ResponseSpec(
        data_container=result,
        description="The identical run again: the stored result, as first returned",
        generate_examples=False,
    )


def not_modified() -> ResponseSpec:
    return ResponseSpec(
        data_container=None,
        description="Not modified: the ETag sent in If-None-Match still holds",
        generate_examples=False,
    )
