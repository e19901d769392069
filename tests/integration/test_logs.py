"""The request log: one JSON line a request, with the fields of the other log lines,
kept as the requests end and written in batches."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from service.support.logs import CLIENT_CLOSED, METHOD_LOGGED, PATH_LOGGED, RequestLog


def test_a_kept_request_becomes_the_line_the_log_writes() -> None:
    ended = datetime(2026, 11, 30, 9, 5, 7, 45_000, tzinfo=UTC).timestamp()
    lines = RequestLog().lines(
        [
            (ended, "abc-1", "GET", "/v1/daily/2026-11-29", 200, 0.001234, None),
            (ended + 1.5, "abc-2", "POST", "/v1/analyze", CLIENT_CLOSED, 0.25, None),
        ]
    )
    assert lines.endswith(b"\n") and lines.count(b"\n") == 2
    first, second = map(json.loads, lines.splitlines())
    assert first == {
        "time": "2026-11-30T09:05:07.045Z",
        "level": "info",
        "logger": "shutbox.access",
        "message": "request",
        "request_id": "abc-1",
        "method": "GET",
        "path": "/v1/daily/2026-11-29",
        "status": 200,
        "ms": 1.23,
    }
    assert list(first) == list(second)  # the same fields, in the same order
    assert second["time"] == "2026-11-30T09:05:08.545Z"
    assert (second["message"], second["status"], second["ms"]) == (
        "client closed request",
        CLIENT_CLOSED,
        250.0,
    )


def test_a_traced_request_has_its_span_after_the_other_fields() -> None:
    ids = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")
    [untraced, traced] = map(
        json.loads,
        RequestLog()
        .lines([(0.0, "a", "GET", "/", 200, 0.001, None), (0.0, "b", "GET", "/", 200, 0.001, ids)])
        .splitlines(),
    )
    assert "trace_id" not in untraced
    assert list(traced) == [*untraced, "trace_id", "span_id"]
    assert (traced["trace_id"], traced["span_id"]) == ids


def test_requests_are_written_at_the_flush_and_a_long_path_is_cut(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = RequestLog()  # no running loop: each request is written at once
    log.request('id-"quoted"', "GET", "/x" * PATH_LOGGED, 404, 0.0001)
    [line] = capsys.readouterr().out.splitlines()
    written = json.loads(line)
    assert written["request_id"] == 'id-"quoted"'
    assert written["path"] == ("/x" * PATH_LOGGED)[:PATH_LOGGED]
    log.flush()
    assert capsys.readouterr().out == ""  # nothing kept twice


def test_a_method_a_client_made_up_is_cut(capsys: pytest.CaptureFixture[str]) -> None:
    """Any method string reaches the app (60,000 letters were): the log keeps a few."""
    RequestLog().request("id-1", "M" * 60_000, "/v1/rules", 405, 0.0001)
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["method"] == "M" * METHOD_LOGGED
    assert METHOD_LOGGED <= 32 and len(line) < 300
