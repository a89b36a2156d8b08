"""Every GET endpoint of the schema refuses an unknown parameter and a repeated one with a 400
naming it (code "invalid", errors keyed by the parameter): a misspelt name is never silently
ignored, a repeated one never silently takes its last value."""

import re

import pytest

pytestmark = pytest.mark.django_db

UNKNOWN = "zz_no_such_parameter"


def example_path(path: str, survey) -> str:
    """The path with each {parameter} filled by a value the catalogue has."""
    values = {
        "key": survey["work_key"],
        "slug": survey["slug"],
        "pk": survey["pk"],
        "id": survey["pk"],
    }
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "x")), path)


def get_operations(schema):
    for path, methods in schema["paths"].items():
        if "get" in methods:
            yield path, methods["get"]


def repeatable_parameter(operation):
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "query" and parameter.get("schema", {}).get("type") != "array":
            return parameter
    return None


def sample_value(parameter) -> str:
    schema = parameter.get("schema", {})
    if "enum" in schema:
        return str(schema["enum"][0])
    if schema.get("type") in ("integer", "number"):
        return str(int(schema.get("minimum", 1)))
    if schema.get("type") == "boolean":
        return "true"
    return "a"


@pytest.fixture
def survey_values(survey):
    from catalogue.models import CostModel, Work

    work = Work.objects.order_by("pk").first()
    model = CostModel.objects.order_by("pk").first()
    return {"work_key": work.key, "slug": "data-parallel", "pk": model.pk}


def test_every_get_endpoint_refuses_an_unknown_and_a_repeated_parameter(client, survey_values):
    schema = client.get("/api/schema/?format=json").json()
    failures = []
    for path, operation in get_operations(schema):
        url = example_path(path, survey_values)
        response = client.get(url, {UNKNOWN: "1"})
        body = response.json() if response["Content-Type"].startswith("application/json") else {}
        if response.status_code != 400 or UNKNOWN not in body.get("errors", {}):
            failures.append((url, "unknown", response.status_code))
        parameter = repeatable_parameter(operation)
        if parameter is None:
            continue
        name, value = parameter["name"], sample_value(parameter)
        response = client.get(f"{url}?{name}={value}&{name}={value}")
        body = response.json() if response["Content-Type"].startswith("application/json") else {}
        if response.status_code != 400 or name not in body.get("errors", {}):
            failures.append((url, f"repeated {name}", response.status_code))
    for failure in failures:
        print("FAIL", failure)
    assert failures == []
