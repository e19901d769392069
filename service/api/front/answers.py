"""What the front answers itself, straight to the server (before or without a handler):
a whole answer in two messages, and the 429 of a client over its limits."""

from __future__ import annotations

import math

from litestar.types import ASGIApp, Receive, Scope, Send

from service.api.problems import MEDIA_TYPE, RATE_LIMITED, encoded
from service.caching import cached
from service.support.i18n import LANGUAGES, Language, _, current, speaking


def content_length(body: bytes) -> tuple[bytes, bytes]:
    return b"content-length", str(len(body)).encode()


async def send_whole(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    """A whole response in two messages, its headers as given (encoded already)."""
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


@cached("too_many_requests", len(LANGUAGES))
def too_many_problem(language: Language) -> bytes:
    """The 429 problem's body, in a language: made once, sent many times."""
    with speaking(language):
        return encoded(
            RATE_LIMITED(
                _("Too many requests from this client; wait as Retry-After says, then retry.")
            )
        )


def too_many_requests(wait: float) -> ASGIApp:
    """The 429 answer (problem details in the request's language, Retry-After: the
    seconds to wait, at least one); under ``language_middleware``, which sets it."""

    async def answer(scope: Scope, receive: Receive, send: Send) -> None:
        body = too_many_problem(current())
        headers = [
            (b"content-type", MEDIA_TYPE.encode()),
            (b"retry-after", str(max(1, math.ceil(wait))).encode()),
            content_length(body),
        ]
        await send_whole(send, 429, headers, body)

    return answer
