"""Schemathesis against our own OpenAPI schema, as a tool author would run it: `st run` with
every check (`--checks all`) and every phase (examples, coverage, fuzzing, stateful), against a
live server on the test database, with the survey loaded. Two runs: the read operations
anonymously, then the writes with a curator's token. Zero failures expected.

Deterministic by default (a fixed seed, FUZZ_EXAMPLES examples per operation, 25), so that a red
build fails again on the same requests and a green one stays green. FUZZ_RANDOM=1 explores new
requests; before a release, run FUZZ_EXAMPLES=200 on both databases (docs/operations.md, "Tests
and CI").
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from explorer.web import throttling

CONFIG = Path(__file__).with_name("schemathesis.toml")
ST = Path(sys.executable).with_name("st")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
SEED = os.environ.get("FUZZ_SEED", "17")


@pytest.fixture
def fuzzed_server(committed_survey, live_server, curator, monkeypatch):
    """The survey behind a live server, rate limits out of the fuzzer's way (a 429 is
    documented, but every operation answering 429 would test nothing)."""
    unlimited = {"anon": None, "user": None, "demo_run": None}
    monkeypatch.setattr(throttling.AnonThrottle, "THROTTLE_RATES", unlimited)
    monkeypatch.setattr(throttling.UserThrottle, "THROTTLE_RATES", unlimited)
    return live_server


def schemathesis(url: str, *options: str, config: Path = CONFIG) -> str:
    command = [
        str(ST),
        "--config-file",
        str(config),
        "run",
        f"{url}/api/schema/",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(EXAMPLES),
        "--workers",
        "1",
        "--no-color",
        *([] if os.environ.get("FUZZ_RANDOM") == "1" else ["--seed", SEED]),
        *options,
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=1500)
    summary = run.stdout[run.stdout.rfind("=== SUMMARY") :] if "SUMMARY" in run.stdout else ""
    print(summary or run.stdout[-4000:] + run.stderr[-2000:])
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-2000:]
    return run.stdout


def test_it_reads_every_operation_with_every_check(fuzzed_server):
    output = schemathesis(fuzzed_server.url, "--include-method", "GET")
    assert re.search(r"Tested: \d+", output)


@pytest.mark.xfail(
    strict=True,
    reason="not yet clean (issue 17, left for a follow-up): 6 x ST202, valid-looking bodies "
    "refused by the models' own rules, which the schema does not state: a work citing itself, "
    "a citation without an evidence source or excerpt (a PATCH of a survey edge, which has "
    "none), an unknown work key or technique slug, a formula that does not parse",
)
def test_it_writes_as_a_curator_with_every_check(fuzzed_server, curator, tmp_path):
    token = Token.objects.create(user=curator)
    # The curator's token for the schema's tokenAuth scheme, so that schemathesis knows which
    # credential it sends (and checks that a wrong one is refused).
    config = tmp_path / "schemathesis.toml"
    auth = f'[auth.openapi.tokenAuth]\napi_key = "Token {token.key}"\n\n'
    config.write_text(auth + CONFIG.read_text())
    output = schemathesis(fuzzed_server.url, "--exclude-method", "GET", config=config)
    assert re.search(r"Tested: \d+", output)
