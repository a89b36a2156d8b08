"""Schemathesis against our own OpenAPI schema: for every read operation, generated requests
never get a 5xx and every response conforms to the schema. Bounded: FUZZ_EXAMPLES each (40).

Deterministic by default, so that a red build fails again on the same requests and a green one
stays green; FUZZ_RANDOM=1 explores new requests (run it with FUZZ_EXAMPLES=300 on both databases
before a release: that is how the NUL-byte and %-in-a-value errors were found).
"""

import os

import pytest
import schemathesis
from django.core import signals
from django.core.management import call_command
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from explorer.wsgi import application

schema = schemathesis.openapi.from_wsgi("/api/schema/", application).include(method="GET")


@pytest.fixture
def catalogue(db):
    """The survey, and a database connection that outlives each request: the app is called
    straight through WSGI, whose end-of-request signal would close the test's connection (as
    Django's own test client prevents too)."""
    call_command("load_survey", verbosity=0)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    derandomize=os.environ.get("FUZZ_RANDOM") != "1",
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_it_never_fails_and_always_matches_the_schema(case, catalogue):
    case.call_and_validate(checks=[not_a_server_error, response_schema_conformance])
