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


def test_the_schema_lists_the_parameters_each_view_declares(client):
    """One declaration: what the schema documents is what the view's form checks."""
    from django.urls import resolve

    schema = client.get("/api/schema/?format=json").json()
    undeclared, checked = [], 0
    for path, operation in get_operations(schema):
        documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        url = re.sub(r"\{\w+\}", "1", path)
        view = resolve(url).func
        view_class = getattr(view, "cls", None) or getattr(view, "view_class", None)
        actions = getattr(view, "actions", None) or {}
        instance = view_class(action=actions.get("get"), **getattr(view, "initkwargs", {}))
        if not hasattr(instance, "get_query_form_class"):
            continue  # the evaluate endpoint: a form per cost model
        form = instance.get_query_form_class()()
        checked += 1
        declared = set(form.fields) | (form.ignored - {"format"})
        if documented - {"format"} != declared - {"format"}:
            undeclared.append((path, sorted(documented ^ declared)))
    assert undeclared == []
    assert checked >= 20  # every GET operation but the evaluate endpoint


def test_every_check_of_a_name_is_the_form_s():
    """The run-time schema middleware is gone; its work is each view's form's."""
    from django.conf import settings

    assert not any("query_check" in name for name in settings.MIDDLEWARE)
