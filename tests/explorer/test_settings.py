import pytest
from django.core.exceptions import ImproperlyConfigured

from explorer.settings import env_int


def test_it_reads_a_whole_number_within_its_bounds(monkeypatch):
    monkeypatch.setenv("GRAPH_MAX_SHOWN", "499")
    assert env_int("GRAPH_MAX_SHOWN", 450, maximum=499) == 499


def test_it_refuses_a_number_over_its_maximum(monkeypatch):
    # /graph/ lays out at most 499 works: networkx needs scipy from 500 on.
    monkeypatch.setenv("GRAPH_MAX_SHOWN", "500")
    with pytest.raises(ImproperlyConfigured, match="GRAPH_MAX_SHOWN must be at most 499"):
        env_int("GRAPH_MAX_SHOWN", 450, maximum=499)
