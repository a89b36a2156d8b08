"""Abuse: oversized bodies, anonymous writes, CSRF, throttling, headers, no stack traces."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client

from catalogue.models import Citation
from tests.helpers import clear_caches, make_work


@pytest.fixture(autouse=True)
def fresh_throttle_counts():
    clear_caches()
    yield
    clear_caches()


@pytest.mark.django_db
def test_it_refuses_an_oversized_request_body(client):
    body = '{"params": {"seed": 1}, "padding": "' + "x" * (3 * 1024 * 1024) + '"}'
    response = client.post("/api/demos/pipeline-bubble/run/", body, content_type="application/json")
    assert response.status_code in (400, 413)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, url",
    [
        ("post", "/api/citations/"),
        ("post", "/api/cost-models/"),
        ("delete", "/api/cost-models/1/"),
        ("post", "/api/works/"),
    ],
)
def test_it_refuses_anonymous_writes(client, method, url):
    response = getattr(client, method)(url, {}, content_type="application/json")
    assert response.status_code in (401, 403, 405)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        "/api/citations/?cited=%C2%A2%008",
        "/api/works/?q=a%00b",
        "/api/works/x%00y/",
        "/api/snowball/?seeds=a%00",
        "/works/?q=%00",
        "/works/x%00y/",
        "/graph/?q%00=1",
    ],
)
def test_it_refuses_a_nul_byte_in_the_path_or_query_with_a_400(client, url):
    # PostgreSQL raises a DataError (a 500) on NUL in a text parameter.
    response = client.get(url)
    assert response.status_code == 400
    assert "NUL byte" in response.content.decode()


@pytest.mark.django_db
def test_it_enforces_csrf_on_the_admin_forms(curator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(curator)
    response = client.post("/admin/catalogue/work/add/", {"key": "x2017", "title": "X"})
    assert response.status_code == 403


@pytest.mark.django_db
def test_it_enforces_csrf_on_session_api_writes(curator):
    make_work("a2017"), make_work("b2017")
    client = Client(enforce_csrf_checks=True)
    client.force_login(curator)
    body = {"citing": "a2017", "cited": "b2017", "provenance": "curator", "evidence_source": "x"}
    response = client.post("/api/citations/", body, content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not Citation.objects.exists()


@pytest.mark.django_db
def test_it_throttles_anonymous_api_use(client, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "anon": "3/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    codes = [client.get("/api/works/").status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]


@pytest.mark.django_db
def test_it_keeps_throttle_counts_apart_from_cached_responses(client, monkeypatch):
    # A client requesting many distinct URLs fills the response cache; were the counters in
    # the same cache, evicting them would reset the client's rate limit.
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "anon": "3/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    codes = [client.get(f"/api/works/?page={n}").status_code for n in (1, 1, 1)]
    caches["responses"].clear()
    codes.append(client.get("/api/works/").status_code)
    assert codes == [200, 200, 200, 429]


@pytest.mark.django_db
def test_it_throttles_a_client_that_forges_its_forwarded_address(client, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    rates = {**SimpleRateThrottle.THROTTLE_RATES, "anon": "2/minute"}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    codes = [
        client.get("/api/categories/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code
        for n in range(4)
    ]
    assert codes == [200, 200, 429, 429]


@pytest.mark.django_db
def test_it_sends_security_headers(client):
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    script_src = next(part for part in csp.split(";") if part.strip().startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
    assert "frame-ancestors 'none'" in csp
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


def production_environment() -> dict[str, str]:
    """This process's environment without test-only switches (the browser tests set one)."""
    return {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}


def run_production_check(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **production_environment(),
        "DEBUG": "false",
        "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-enough-0123456789",
        "ALLOWED_HOSTS": "explorer.example.org",
        **env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_the_deploy_check_in_production_mode():
    result = run_production_check("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr


def test_it_refuses_to_start_in_production_without_a_secret_key():
    result = run_production_check("check", SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


PRODUCTION_PROBE = """
import os, django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client(raise_request_exception=False)
response = client.get('/works/?year_min=1999', secure=True, HTTP_HOST='explorer.example.org')
print(response.status_code)
print(response.headers.get('Strict-Transport-Security', ''))
print('Traceback' in response.content.decode())
"""


def test_it_shows_no_stack_trace_and_sends_hsts_in_production(tmp_path):
    # A database with no tables: the page fails inside, and production must not say how.
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_PROBE],
        cwd=settings.BASE_DIR,
        env={
            **production_environment(),
            "DJANGO_SETTINGS_MODULE": "explorer.settings",
            "DEBUG": "false",
            "SECRET_KEY": "a-production-secret-key-that-is-long-and-random-enough-0123456789",
            "ALLOWED_HOSTS": "explorer.example.org",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    status, hsts, leaked = result.stdout.split("\n")[:3]
    assert status == "500"
    assert hsts.startswith("max-age=")
    assert leaked == "False"


def test_it_refuses_a_nul_byte_in_a_json_body_with_the_error_shape(client, curator):
    client.force_login(curator)
    body = {"citing": "a", "cited": "b", "provenance": "curator", "evidence_source": "x\x00y"}
    response = client.post("/api/citations/", body, content_type="application/json")
    assert (response.status_code, response.json()) == (
        400,
        {
            "status": 400,
            "code": "parse_error",
            "detail": "a string in the body contains a NUL byte (\\u0000)",
            "errors": {},
        },
    )
