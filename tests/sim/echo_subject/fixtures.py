"""The echo subject's pytest fixture: the session's setup as a device."""

from __future__ import annotations

import pytest

from fairdie.device import Device, Setup

__all__ = ["echo_device"]


@pytest.fixture
def echo_device(fairdie_setup: Setup) -> Device:
    """A fresh echo board (the core's fairdie_setup: --fairdie-board echo)."""
    return fairdie_setup.device()
