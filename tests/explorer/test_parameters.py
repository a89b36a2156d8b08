"""Every read of the API refuses an unknown parameter and a repeated one, naming it, in the
shared error shape; the names come from the schema, so what it lists is what is accepted."""

import re
from urllib.parse import urlencode

import pytest
from django.http import QueryDict

from catalogue.models import Author, Category, Citation, CostModel, Technique, Work
from explorer.demos import DEMOS
from explorer.web.parameters import Declared, declared_from_schema, parameter_errors


def make_declared(names=(), arrays=(), open_names=False) -> Declared:
    return Declared(frozenset({"format", *names}), frozenset(arrays), open_names)


def test_it_names_unknown_and_repeated_parameters():
    declared = make_declared(["P", "era"])
    query = QueryDict("P=1&P=2&bandwith_gbs=0.1&era=all")
    assert parameter_errors(query, declared) == {
        "P": ["P is given 2 times; give it once"],
        "bandwith_gbs": ["unknown parameter 'bandwith_gbs' (allowed: P, era)"],
    }


def test_it_lets_an_array_repeat_and_an_open_operation_take_other_names():
    assert parameter_errors(QueryDict("strategy=a&strategy=b"), make_declared(arrays=["strategy"]))
    assert not parameter_errors(
        QueryDict("strategy=a&strategy=b"), make_declared(["strategy"], arrays=["strategy"])
    )
    assert not parameter_errors(QueryDict("N=1&C_in=3"), make_declared(open_names=True))
    assert parameter_errors(QueryDict("N=1&N=2"), make_declared(open_names=True)) == {
        "N": ["N is given 2 times; give it once"]
    }


def test_it_reads_the_declared_names_from_the_schema():
    schema = {
        "paths": {
            "/api/x/{id}/": {
                "get": {
                    "parameters": [
                        {"in": "path", "name": "id", "schema": {"type": "integer"}},
                        {"in": "query", "name": "q", "schema": {"type": "string"}},
                        {"in": "query", "name": "tag", "schema": {"type": "array"}},
                        {
                            "in": "query",
                            "name": "variables",
                            "schema": {"type": "object", "additionalProperties": True},
                        },
                        {
                            "in": "query",
                            "name": "sweep",
                            "schema": {"type": "object", "properties": {"sweep": {}, "to": {}}},
                        },
                    ]
                }
            },
            "/api/x/": {"post": {}},
        }
    }
    [(pattern, declared)] = declared_from_schema(schema)
    assert pattern.match("/api/x/7/") and not pattern.match("/api/x/7/y/")
    assert declared == Declared(
        frozenset({"format", "q", "tag", "sweep", "to"}), frozenset({"tag"}), True
    )


def real_path(path: str) -> str:
    """A schema path with each placeholder replaced by an existing record's key."""
    run_id = "1"  # the refusal comes before the view looks the run up
    values = {
        "/api/authors/{id}/": str(Author.objects.first().pk),
        "/api/categories/{slug}/": Category.objects.first().code,
        "/api/citations/{id}/": str(Citation.objects.first().pk),
        "/api/cost-models/{id}/": str(CostModel.objects.first().pk),
        "/api/cost-models/{id}/evaluate/": str(CostModel.objects.first().pk),
        "/api/costs/plots/{name}/": "wd-plane",
        "/api/demos/{slug}/": next(iter(DEMOS)),
        "/api/demos/runs/{id}/": run_id,
        "/api/techniques/{slug}/": Technique.objects.first().slug,
        "/api/works/{key}/": Work.objects.first().key,
        "/api/works/{key}/related/": Work.objects.first().key,
    }
    return re.sub(r"\{[^}]+\}", values.get(path, "x"), path) if "{" in path else path


@pytest.fixture
def read_operations(client, survey) -> list[tuple[str, dict]]:
    schema = client.get("/api/schema/?format=json").json()
    return [
        (path, operations["get"])
        for path, operations in schema["paths"].items()
        if "get" in operations
    ]


def test_every_read_operation_refuses_an_unknown_and_a_repeated_parameter(client, read_operations):
    assert len(read_operations) >= 20
    for path, operation in read_operations:
        url = real_path(path)
        response = client.get(f"{url}?zz_unknown=1")
        assert response.status_code == 400, (path, response.content[:300])
        body = response.json()
        assert body["code"] == "invalid" and list(body["errors"]) == ["zz_unknown"], path
        [message] = body["errors"]["zz_unknown"]
        if path == "/api/cost-models/{id}/evaluate/":
            # its variables are the model's own: the view refuses an unknown one itself
            assert message.startswith("unknown parameter zz_unknown (this model's variables: ")
        else:
            assert message.startswith("unknown parameter 'zz_unknown' (allowed: "), path
        single = [
            p["name"]
            for p in operation.get("parameters", [])
            if p["in"] == "query" and p["schema"].get("type") not in ("array", "object")
        ]
        name = single[0] if single else "format"
        response = client.get(f"{url}?{urlencode([(name, 'json'), (name, 'json')])}")
        assert response.status_code == 400, (path, name)
        assert response.json()["errors"] == {name: [f"{name} is given 2 times; give it once"]}


def test_it_still_takes_what_the_schema_allows_to_repeat(client, survey):
    keys = list(Work.objects.references().values_list("key", flat=True)[:2])
    seeds = urlencode([("seeds", keys[0]), ("seeds", keys[1])])
    assert client.get(f"/api/snowball/?{seeds}").status_code == 200
    provenance = "provenance=curator&provenance=secondary-index"
    assert client.get(f"/api/graph/?{provenance}").status_code == 200
    model = CostModel.objects.exclude(variables=[]).first()
    name = model.variables[0]["name"]
    value = model.variables[0]["default"]
    assert client.get(f"/api/cost-models/{model.pk}/evaluate/?{name}={value}").status_code == 200


def test_it_refuses_an_unknown_parameter_of_the_cost_models_list(client, survey):
    response = client.get("/api/cost-models/?foo=1")
    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "invalid",
        "detail": "unknown parameter 'foo' (allowed: none)",
        "errors": {"foo": ["unknown parameter 'foo' (allowed: none)"]},
    }
