"""The schema as a tool author uses it: a Python client generated from /api/schema/ by
openapi-python-client (pinned in requirements-dev.txt; generation reads a local file, no network)
pages through the works, reads one, evaluates a cost model, runs a demo and, as a curator,
creates and deletes a citation, against a live server."""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token

from catalogue.models import Citation, CostModel, Work

GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def generated(tmp_path, committed_survey, live_server, client, monkeypatch):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(client.get("/api/schema/?format=json").json()))
    output = tmp_path / "explorer_client"
    subprocess.run(
        [str(GENERATOR), "generate", "--path", str(schema), "--output-path", str(output)]
        + ["--meta", "none"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("explorer_client")]:
        del sys.modules[name]
    return importlib.import_module("explorer_client"), live_server.url


def api(name: str):
    return importlib.import_module(f"explorer_client.api.{name}")


def test_a_generated_client_reads_evaluates_runs_and_writes(generated, curator):
    package, url = generated
    reader = package.Client(base_url=url)

    keys, page = [], 1
    while True:  # every work of the survey, 100 at a time
        listing = api("works.works_list").sync(client=reader, page=page, page_size=100)
        keys += [work.key for work in listing.results]
        if not listing.next_:
            break
        page += 1
    assert len(keys) == listing.count == Work.objects.in_era("survey").count() == 270

    work = api("works.works_retrieve").sync(keys[0], client=reader)
    assert (work.key, work.title_bibtex) == (keys[0], Work.objects.get(key=keys[0]).title)

    model = CostModel.objects.get(label="Tree allreduce: time")
    evaluation = api("cost_models.cost_models_evaluate_retrieve").sync(model.pk, client=reader)
    # A typed body (issue 44: it was a bare object, read as a dict).
    assert evaluation.formula == model.formula and evaluation.value > 0

    error = api("works.works_list").sync(client=reader, page_size=1, page=10_000)
    assert (error.status, error.code) == (404, "not_found")

    curator_client = package.AuthenticatedClient(
        base_url=url, token=Token.objects.create(user=curator).key, prefix="Token"
    )
    models = importlib.import_module("explorer_client.models")
    run = api("demos.demos_run").sync(
        "pipeline-bubble",
        client=curator_client,
        body=models.DemoRunNowRequest(params=models.DemoRunNowRequestParams.from_dict({"P": 2})),
    )
    assert run.slug == "pipeline-bubble" and run.params["P"] == 2 and run.cached is False

    body = models.CitationWriteRequest(
        citing=keys[1],
        cited=keys[0],
        provenance=models.ProvenanceEnum.CURATOR,
        evidence_source="https://example.org/a-test-reference-list",
    )
    created = api("citations.citations_create").sync(client=curator_client, body=body)
    assert Citation.objects.filter(pk=created.id, citing__key=keys[1]).exists()
    response = api("citations.citations_destroy").sync_detailed(created.id, client=curator_client)
    assert response.status_code == 204
    assert not Citation.objects.filter(pk=created.id).exists()
    for client in (reader, curator_client):  # their connections, else ResourceWarnings
        client.get_httpx_client().close()
