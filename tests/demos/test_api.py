"""The demos over HTTP: schemas, validated runs, the cache, saturation (429) and the pages."""

import pytest

from catalogue.models import Technique
from explorer.demos import DEMOS
from explorer.demos.models import DemoRun
from explorer.demos.runner import DemoLimitExceeded

PIPELINE = "pipeline-bubble"


@pytest.mark.django_db
def test_it_lists_every_demo_with_bounded_numeric_parameters(client):
    demos = client.get("/api/demos/").json()
    assert [demo["slug"] for demo in demos] == list(DEMOS)
    for demo in demos:
        for param in demo["params"]:
            if param["type"] in ("int", "float"):
                assert param["min"] is not None and param["max"] is not None
                assert param["min"] <= param["default"] <= param["max"]


@pytest.mark.django_db
def test_it_runs_a_demo_with_defaults_then_serves_it_from_the_cache(client):
    first = client.post(f"/api/demos/{PIPELINE}/run/", {}, content_type="application/json")
    assert first.status_code == 200, first.content
    body = first.json()
    assert body["cached"] is False
    assert set(body["result"]) == {"metrics", "tables", "figures", "agreement"}
    assert all(claim["holds"] for claim in body["result"]["agreement"])
    again = client.post(
        f"/api/demos/{PIPELINE}/run/", {"params": body["params"]}, content_type="application/json"
    )
    assert again.json()["cached"] is True
    assert again.json()["result"] == body["result"]
    assert DemoRun.objects.count() == 1


@pytest.mark.django_db
def test_it_refuses_an_out_of_bounds_parameter_naming_it(client):
    demo = DEMOS[PIPELINE]
    numeric = next(p for p in demo.params if p.type == "int" and p.name != "seed")
    body = {"params": {numeric.name: numeric.max + 1}}
    response = client.post(f"/api/demos/{PIPELINE}/run/", body, content_type="application/json")
    assert response.status_code == 400
    message = response.json()["detail"]
    assert numeric.name in message and str(numeric.max) in message
    assert not DemoRun.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [{"params": {"nope": 1}}, {"params": {"seed": "abc"}}, {"params": []}, []],
)
def test_it_refuses_malformed_bodies(client, body):
    response = client.post(f"/api/demos/{PIPELINE}/run/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"]


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_demo(client):
    assert client.get("/api/demos/no-such-demo/").status_code == 404
    assert (
        client.post("/api/demos/no-such-demo/run/", {}, content_type="application/json").status_code
        == 404
    )


@pytest.mark.django_db
def test_it_answers_429_with_retry_after_when_saturated(client, settings):
    # Saturation is now a full queue (DEMO_QUEUE_TOTAL runs waiting or running), not busy slots.
    settings.DEMO_QUEUE_TOTAL = 1
    DemoRun.objects.create(slug=PIPELINE, version=1, params_digest="x", params={})
    response = client.post(f"/api/demos/{PIPELINE}/run/", {}, content_type="application/json")
    assert response.status_code == 429
    assert response["Retry-After"] == "2"


@pytest.mark.django_db
def test_it_reports_a_run_that_hit_a_limit(client, monkeypatch):
    def too_slow(*args, **kwargs):
        raise DemoLimitExceeded("the demo ran out of time (15 s wall-clock limit)", "wall")

    monkeypatch.setattr("explorer.demos.runner.run_demo", too_slow)
    response = client.post(f"/api/demos/{PIPELINE}/run/", {}, content_type="application/json")
    assert response.status_code == 422
    assert "ran out of time" in response.json()["detail"]
    assert not DemoRun.objects.filter(status="succeeded").exists()


@pytest.mark.django_db
def test_it_groups_the_demo_pages_by_level(client):
    response = client.get("/demos/")
    assert response.status_code == 200
    for demo in DEMOS.values():
        assert f"/demos/{demo.slug}/" in response.content.decode()


@pytest.mark.django_db
def test_it_fills_the_form_from_the_url_but_never_runs_on_a_get(client):
    # A GET used to run the demo with no throttle (?run=1); now only a POST queues a run.
    response = client.get(f"/demos/{PIPELINE}/?seed=3&run=1")
    assert response.status_code == 200
    assert b'name="seed" value="3"' in response.content
    assert not DemoRun.objects.exists()
    bad = client.get(f"/demos/{PIPELINE}/?seed=-1&run=1")
    assert bad.status_code == 400
    assert b"seed must be" in bad.content


@pytest.mark.django_db
def test_it_links_every_technique_to_a_registered_demo(survey):
    slugs = set(Technique.objects.exclude(demo_slug="").values_list("demo_slug", flat=True))
    assert slugs and slugs <= set(DEMOS)


@pytest.mark.django_db
def test_it_refuses_parameters_sent_without_the_params_wrapper(client):
    response = client.post(
        f"/api/demos/{PIPELINE}/run/", {"P": 8, "M": 4}, content_type="application/json"
    )
    assert (response.status_code, response.json()) == (
        400,
        {
            "status": 400,
            "code": "invalid",
            "detail": "unknown keys 'M', 'P' in the body; parameters go inside \"params\": {...}",
            "errors": {
                "non_field_errors": [
                    "unknown keys 'M', 'P' in the body; parameters go inside \"params\": {...}"
                ]
            },
        },
    )
    assert not DemoRun.objects.exists()


@pytest.mark.django_db
def test_it_refuses_an_unknown_key_beside_params(client):
    body = {"params": {"P": 4}, "parms": {"M": 2}}
    response = client.post(f"/api/demos/{PIPELINE}/run/", body, content_type="application/json")
    assert (response.status_code, response.json()) == (
        400,
        {
            "status": 400,
            "code": "invalid",
            "detail": "unknown key 'parms' in the body; the only key is \"params\": {...}",
            "errors": {
                "non_field_errors": [
                    "unknown key 'parms' in the body; the only key is \"params\": {...}"
                ]
            },
        },
    )
