"""/api/planner/accuracy/: the accuracy document as a whole, its paged predictions, bad input
and its place in the OpenAPI schema."""

from explorer.planner.accuracy.calibration import accuracy
from explorer.planner.accuracy.report import summary


def test_it_answers_the_whole_accuracy_document_without_the_predictions(client, db):
    response = client.get("/api/planner/accuracy/")
    assert response.status_code == 200
    expected = {k: v for k, v in accuracy().items() if k != "predictions"}
    expected |= {
        "predictions_count": len(accuracy()["predictions"]),
        "api_url": "/api/planner/accuracy/",
        "summary": summary(accuracy()),  # every held-out score at once
        "page_url": "/planner/accuracy/",
    }
    assert response.json() == expected


def test_it_pages_the_predictions_when_asked(client, db):
    every = accuracy()["predictions"]
    first = client.get("/api/planner/accuracy/?predictions=1&page_size=50").json()
    # Each with its score's page: none here, no MLPerf system in the database.
    assert first["predictions"] == [p | {"url": ""} for p in every[:50]]
    assert first["page"] == {"number": 1, "size": 50, "pages": -(-len(every) // 50)}
    second = client.get("/api/planner/accuracy/?predictions=1&page_size=50&page=2").json()
    assert second["predictions"] == [p | {"url": ""} for p in every[50:100]]
    assert "predictions" not in client.get("/api/planner/accuracy/?predictions=0").json()


def test_it_refuses_a_bad_or_unknown_parameter_in_the_error_shape(client, db):
    response = client.get("/api/planner/accuracy/?page_size=100000")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"page_size"}
    response = client.get("/api/planner/accuracy/?colour=red")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"colour"}


def test_it_is_in_the_openapi_schema(client, db):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/planner/accuracy/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"predictions", "page", "page_size"}
