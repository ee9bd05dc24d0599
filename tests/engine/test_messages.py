"""Every transport understands every protocol message: one state for all."""

from __future__ import annotations

from pytest_rspbench.engine.transports.inbox import Inbox


def test_a_service_engine_can_decline_a_query_as_a_process_engine_can():
    results = []
    inbox = Inbox(results.append)
    inbox.take('{"type": "hello", "protocol": 1, "name": "svc"}', "the callback")
    inbox.take('{"type": "unsupported", "reason": "no OPTIONAL"}', "the callback")
    assert inbox.hello is not None and inbox.hello.name == "svc"
    assert inbox.declined == "no OPTIONAL" and not inbox.registered
    inbox.take('{"type": "error", "message": "odd", "fatal": false}', "the callback")
    assert inbox.listed() == ["message 3: engine error: odd"] and results == []
