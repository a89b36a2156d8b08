"""Every JSON answer of the API declares its body (issue 44: twenty declared a bare object, so
no client or fuzzer could check one), and the bodies match what they declare."""

import jsonschema
import pytest

from catalogue.models import CostModel, MlperfSystem, Work
from tests.helpers import make_mlperf_score

LEFT_TO_THE_PLANNER = ("/api/planner/",)  # its documents are the planner's own work


def _schema(client) -> dict:
    return client.get("/api/schema/?format=json").json()


def _resolved(schema: dict, components: dict) -> dict:
    """A component's schema as JSON Schema: its $ref followed, OpenAPI's `nullable` a type."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        prop = dict(prop)
        if prop.pop("nullable", False) and "type" in prop:
            prop["type"] = [prop["type"], "null"]
        prop.pop("format", None)
        properties[name] = prop
    return {**schema, "properties": properties}


def test_every_json_answer_declares_its_body(client, db):
    schema = _schema(client)
    components = schema["components"]["schemas"]
    bare = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                body = response.get("content", {}).get("application/json", {}).get("schema")
                if not status.startswith("2") or body is None:
                    continue
                declared = _resolved(body, components) if "$ref" in body else body
                if declared.get("type") == "object" and not declared.get("properties"):
                    bare.append(f"{method.upper()} {path} {status}")
    assert [b for b in bare if not b.split()[1].startswith(LEFT_TO_THE_PLANNER)] == []


def _operation_schema(client, path: str) -> dict:
    schema = _schema(client)
    body = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    return _resolved(body["schema"], schema["components"]["schemas"])


@pytest.mark.parametrize(
    "path, url",
    [
        ("/api/results/", "/api/results/"),
        ("/api/results/mlperf/", "/api/results/mlperf/"),
        ("/api/categories/{slug}/", "/api/categories/net-pipe/"),
        ("/api/devices/", "/api/devices/"),
        ("/api/data-quality/", "/api/data-quality/"),
        ("/api/graph/", "/api/graph/"),
        ("/api/snowball/", "/api/snowball/?seeds=goyal2017accurate"),
        ("/api/works/{key}/related/", "/api/works/goyal2017accurate/related/"),
        ("/api/costs/plots/{name}/", "/api/costs/plots/brent/"),
        ("/api/cost-models/{id}/evaluate/", "/api/cost-models/{id}/evaluate/"),
        ("/api/results/mlperf/systems/{id}/", "/api/results/mlperf/systems/{system}/"),
        (
            "/api/results/mlperf/systems/{id}/{benchmark}/",
            "/api/results/mlperf/systems/{system}/resnet/",
        ),
    ],
)
def test_each_answer_matches_its_declared_body(client, survey, path, url):
    make_mlperf_score()
    url = url.format(
        id=CostModel.objects.order_by("pk").first().pk,
        system=MlperfSystem.objects.get().pk,
    )
    assert Work.objects.filter(key="goyal2017accurate").exists()
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    declared = _operation_schema(client, path)
    jsonschema.validate(response.json(), declared)
    assert set(response.json()) <= set(declared["properties"])
