"""Request bodies: JSON decoded strictly, in one pass, straight into the handler's struct.

Litestar decodes a JSON body to Python values and then converts them to the handler's
``data`` type leniently: a tile sent as ``"7"`` or ``7.0`` would become ``7``, and a body
nested a thousand deep would blow the decoder's recursion before any type was checked.
Here msgspec decodes the body into the struct itself, with JSON types as written (no
coercion): a value of the wrong type fails where it stands, so a deep nesting fails at
the first level the struct does not allow. A name given twice in one object is refused
too (which of the two counts is anybody's guess: a proxy may read the other one).

The OpenAPI document describes the bodies with msgspec's own JSON Schema of the same
types, so that it promises exactly what this decoder accepts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Final

import msgspec
from litestar import Litestar, Request
from litestar.handlers import HTTPRouteHandler

from service.api import problems
from service.caching import cached
from service.support.i18n import N_, _

DATA: Final = "data"  # the parameter of a handler that takes the request body


class StrictBodyRequest(Request[Any, Any, Any]):
    """The app's request class: ``json()`` is the body decoded into the handler's type."""

    async def json(self) -> Any:
        body_type = body_type_of(self.route_handler)
        if body_type is None:
            return await super().json()
        media_type = self.content_type[0]
        if media_type and not is_json(media_type):
            raise problems.UNSUPPORTED_MEDIA_TYPE(
                _(
                    "Send the body as application/json, not {media_type}.",
                    media_type=media_type[:100],
                ),
            )
        return decode(_decoder(body_type), await self.body())


def is_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def body_type_of(handler: HTTPRouteHandler) -> Any | None:
    """The type a handler takes its body as, if it takes one."""
    field = handler.parsed_fn_signature.parameters.get(DATA)
    return None if field is None else field.annotation


@cached("body_decoders", 64)  # one a body type: the handlers' few
def _decoder(body_type: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(body_type, strict=True)


def decode(decoder: msgspec.json.Decoder[Any], body: bytes) -> Any:
    """The body as the decoder's type, or 400 saying what is wrong and where."""
    try:
        value = decoder.decode(body or b"null")
    except msgspec.ValidationError as error:
        raise problems.INVALID_REQUEST(_where(str(error))) from None
    except msgspec.DecodeError as error:
        text = str(error)
        malformed = text if text.startswith("JSON is malformed") else f"JSON is malformed: {text}"
        raise problems.INVALID_REQUEST(malformed) from None
    except RecursionError:
        raise problems.INVALID_REQUEST(_("The body is nested too deeply.")) from None
    # Each name in an object takes a colon: a body with one colon cannot repeat one.
    if body.count(b":") > 1 and _names_may_repeat(body):
        _refuse_repeated_names(body)
    return value


# A string of JSON, and whether it is a name (a colon after it).
_STRING: Final = re.compile(rb'"((?:[^"\\]|\\.)*)"(\s*:)?')


def _names_may_repeat(body: bytes) -> bool:
    """False when no two names in the body are spelt the same and none is written with
    an escape: then no object repeats one, and the exact check (a second decoding) is
    spared. In valid JSON every quote outside a string opens the next one, so the
    strings are matched in turn."""
    seen: set[bytes] = set()
    for found in _STRING.finditer(body):
        if found.group(2) is None:
            continue
        name = found.group(1)
        if b"\\" in name or name in seen:
            return True
        seen.add(name)
    return False


# msgspec's messages that a client meets, as sentences of the catalogs (the rest, rare,
# stay as msgspec says them).
_MSGSPEC: Final = [
    (re.compile(r"Expected `(\w+)`, got `(\w+)`"), N_("Expected {expected}, got {got}")),
    (re.compile(r"Object missing required field `(.+)`"), N_("The field `{name}` is missing")),
    (re.compile(r"Object contains unknown field `(.+)`"), N_("The field `{name}` is unknown")),
    (re.compile(r"Expected `\w+` of length <= (\d+)"), N_("At most {count} items or characters")),
    (re.compile(r"Expected `\w+` of length >= (\d+)"), N_("At least {count} items or characters")),
    (re.compile(r"Expected `\w+` <= (-?\d+)"), N_("At most {limit}")),
    (re.compile(r"Expected `\w+` >= (-?\d+)"), N_("At least {limit}")),
    (re.compile(r"Invalid enum value (.+)"), N_("Not one of the values allowed: {value}")),
]


def _where(message: str) -> str:
    """msgspec's ``Expected `int`, got `str` - at `$.moves[0][0]` `` as
    ``Expected int, got str (at moves[0][0])``, in the request's language."""
    text, _at, path = message.partition(" - at `$")
    path = path.removesuffix("`").removeprefix(".")
    for pattern, template in _MSGSPEC:
        found = pattern.fullmatch(text)
        if found:
            names = re.findall(r"\{(\w+)\}", template)
            text = _(template, **dict(zip(names, found.groups(), strict=True)))
            break
    return _("{message} (at {path})", message=text, path=path) if path else text


class _RepeatedName(ValueError):
    pass


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names: dict[str, Any] = {}
    for name, value in pairs:
        if name in names:
            raise _RepeatedName(name)
        names[name] = value
    return names


def _refuse_repeated_names(body: bytes) -> None:
    # The body decoded as its type already, so it is valid UTF-8 JSON of a bounded depth.
    try:
        json.loads(body, object_pairs_hook=_unique_names)
    except _RepeatedName as repeated:
        name = str(repeated)[:100]
        raise problems.INVALID_REQUEST(
            _("The field `{name}` is given twice in one object.", name=name)
        ) from None
    except (ValueError, RecursionError):
        raise problems.INVALID_REQUEST(_("JSON is malformed.")) from None


def request_body_types(app: Litestar) -> list[Any]:
    """The body type of every handler of the app that takes one."""
    found: list[Any] = []
    for handler in _handlers(app):
        body_type = body_type_of(handler)
        if body_type is not None and body_type not in found:
            found.append(body_type)
    return found


def _handlers(app: Litestar) -> Iterator[HTTPRouteHandler]:
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            if isinstance(handler, HTTPRouteHandler):
                yield handler


def describe_request_bodies(app: Litestar) -> None:
    """Describe request bodies with msgspec's own JSON Schema: it keeps what the decoder
    enforces and Litestar's generator drops (no unknown fields, bounds on list items,
    tuple lengths, integers that are integers), so the document promises exactly what
    the server accepts. A default is said in words, not as ``default``: generators take a
    property with a default for one always present (true of an answer, not of a request),
    and a client must be free to leave it out."""
    _refs, precise = msgspec.json.schema_components(
        request_body_types(app), ref_template="#/components/schemas/{name}"
    )
    document = app.openapi_schema
    components = document.components.schemas
    assert components is not None
    for name, schema in precise.items():
        if name in components:
            for field in schema.get("properties", {}).values():
                if "default" in field:
                    default = msgspec.json.encode(field.pop("default")).decode()
                    said = f"Optional: the server takes {default} when it is left out."
                    field["description"] = f"{field.get('description', '')} {said}".lstrip()
            components[name] = _without_false_items(schema)


def _without_false_items(schema: Any) -> Any:
    """msgspec closes a tuple's ``prefixItems`` with ``"items": false``; its ``maxItems``
    (the tuple's length) says the same, and generators that take no boolean schema
    (openapi-python-client) refuse the document for it."""
    if isinstance(schema, list):
        return [_without_false_items(value) for value in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("items") is False:
        assert schema.get("maxItems") == len(schema.get("prefixItems", ())), schema
        schema = {key: value for key, value in schema.items() if key != "items"}
    return {key: _without_false_items(value) for key, value in schema.items()}
