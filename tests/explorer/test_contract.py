"""The API's contract: one error shape under /api/, whoever answers, and a schema that says
who may call what, which errors come back, and what each parameter accepts."""

import pytest
from django.test import override_settings

ERROR_REF = {"$ref": "#/components/schemas/Error"}


@pytest.fixture
def schema(client, db):
    return client.get("/api/schema/?format=json").json()


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_it_answers_an_unknown_api_path_with_the_error_shape_not_html(client, db):
    response = client.get("/api/nothing-here/")
    assert (response.status_code, response["Content-Type"], response.json()) == (
        404,
        "application/json",
        {
            "status": 404,
            "code": "not_found",
            "detail": "No API endpoint or resource at /api/nothing-here/.",
            "errors": {},
        },
    )


def test_it_answers_an_unknown_demo_with_the_error_shape(client, db):
    response = client.get("/api/demos/no-such-demo/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert response.json()["detail"].startswith("No demo 'no-such-demo'")


def test_it_answers_a_method_not_allowed_before_asking_for_credentials(client, db):
    response = client.put("/api/authors/", {}, content_type="application/json")
    assert (response.status_code, response.json()) == (
        405,
        {
            "status": 405,
            "code": "method_not_allowed",
            "detail": 'Method "PUT" not allowed.',
            "errors": {},
        },
    )


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_it_answers_an_oversized_body_with_413_in_the_error_shape(client, db):
    body = '{"params": {}, "padding": "' + "x" * 4096 + '"}'
    response = client.post("/api/demos/pipeline-bubble/run/", body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"


def test_it_answers_a_bad_page_size_with_the_parameter_named(client, db):
    response = client.get("/api/works/?page_size=0")
    assert response.json() == {
        "status": 400,
        "code": "invalid",
        "detail": "page_size: must be a whole number between 1 and 500 (got '0')",
        "errors": {"page_size": ["must be a whole number between 1 and 500 (got '0')"]},
    }


PUBLIC_WRITES = {"/api/demos/{slug}/run/", "/api/demos/{slug}/runs/"}


def test_it_documents_reads_as_anonymous_and_writes_as_authenticated(schema):
    for path, method, operation in operations(schema):
        if method == "get":
            assert "security" not in operation, path
        elif path in PUBLIC_WRITES:  # anyone may run a demo: throttled, not authenticated
            assert operation["security"] == [{"cookieAuth": []}, {"tokenAuth": []}, {}], path
        else:
            assert operation["security"] == [{"cookieAuth": []}, {"tokenAuth": []}], path


def test_it_documents_every_error_response_with_the_shared_shape(schema):
    for path, method, operation in operations(schema):
        responses = operation["responses"]
        expected = {"400", "404", "429", "500"} | ({"403", "413"} if method != "get" else set())
        assert expected <= set(responses), (path, method)
        for status in expected:
            assert responses[status]["content"]["application/json"]["schema"] == ERROR_REF
        assert set(responses["429"]["headers"]) == {"Retry-After", "X-Data-Version"}
        for status, response in responses.items():  # every answer names its data release
            assert "X-Data-Version" in response["headers"], (path, method, status)


def test_it_documents_the_parameters_the_code_reads(schema):
    graph = {p["name"]: p for p in schema["paths"]["/api/graph/"]["get"]["parameters"]}
    # Every works facet the graph accepts, from the works FilterSet itself.
    assert {"has_demo", "evidence", "entry_type", "era", "level", "year_min"} <= set(graph)
    assert graph["year_min"]["schema"] == {"type": "integer", "minimum": 1800, "maximum": 2100}
    assert graph["depth"]["schema"] == {"type": "string", "enum": ["1", "2", "3"]}
    works = {p["name"]: p for p in schema["paths"]["/api/works/"]["get"]["parameters"]}
    assert works["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 500}
    assert works["level"]["schema"]["enum"] == []  # no catalogue loaded: no code is valid


def test_it_documents_the_results_endpoints_and_their_filters(schema):
    for path in ("/api/results/", "/api/results/csv/"):
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert {
            "technique",
            "network",
            "family",
            "status",
            "year_min",
            "year_max",
            "devices_min",
            "devices_max",
            "ordering",
        } <= set(parameters)
        assert "-time_to_train_s" in parameters["ordering"]["schema"]["enum"]
