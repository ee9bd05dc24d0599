"""Fixtures of the transport tests: fake services, a broker of the test's own."""

from __future__ import annotations

import pytest


@pytest.fixture
def mosquitto():
    """A broker of this test's own (it may be stopped mid-run)."""
    from pytest_rspbench.engine.transports import broker

    if broker.program() is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    running = broker.start()
    yield running
    running.stop()
