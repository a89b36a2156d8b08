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


def test_the_schema_is_generated_by_one_thread_at_a_time(monkeypatch):
    """gunicorn's threads each ask for the parameters on their first API request; drf-
    spectacular's generation is not safe to run twice at once (two threads answered 500)."""
    import threading
    import time

    from drf_spectacular.generators import SchemaGenerator

    from explorer.web import query_check

    inside, most_inside, lock = 0, 0, threading.Lock()
    generate = SchemaGenerator.get_schema

    def one_at_a_time(self, *args, **kwargs):
        nonlocal inside, most_inside
        with lock:
            inside += 1
            most_inside = max(most_inside, inside)
        time.sleep(0.05)  # long enough for the other threads to arrive
        try:
            return generate(self, *args, **kwargs)
        finally:
            with lock:
                inside -= 1

    monkeypatch.setattr(SchemaGenerator, "get_schema", one_at_a_time)
    query_check.parameters_from_schema.cache_clear()
    tables = []
    threads = [
        threading.Thread(target=lambda: tables.append(query_check.get_parameters()))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    query_check.parameters_from_schema.cache_clear()
    assert most_inside == 1
    assert len(tables) == 6 and all(table == tables[0] for table in tables)
    assert "/api/works/" in tables[0]
