"""A serving process freezes what it keeps as it warms (explorer/web/memory.py, wsgi.py)."""

import gc
import importlib

import pytest
from django.core.signals import request_finished

from explorer.web import memory


@pytest.fixture
def freezes(monkeypatch):
    """The freezes the process would make (counted, not made: the test process keeps running)."""
    made = []
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    monkeypatch.setattr(gc, "freeze", lambda: made.append(True))
    memory.freeze_as_it_warms()
    yield made
    request_finished.disconnect(dispatch_uid="explorer-gc-freeze")


def test_it_freezes_after_the_first_the_20th_and_the_200th_request(client, freezes):
    counts = []
    for _ in range(201):
        client.get("/no-such-page/")
        counts.append(len(freezes))
    assert counts[0] == 1  # after the first request
    assert counts[18] == 1 and counts[19] == 2  # after the 20th
    assert counts[198] == 2 and counts[199] == 3 and counts[200] == 3  # after the 200th, not after


def test_the_served_application_connects_it():
    # What gunicorn and runserver load; run again if an earlier test imported it.
    importlib.reload(importlib.import_module("explorer.wsgi"))
    receivers = [key for key, *_ in request_finished.receivers]
    assert any("explorer-gc-freeze" in str(key) for key in receivers)
    request_finished.disconnect(dispatch_uid="explorer-gc-freeze")
