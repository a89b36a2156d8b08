"""The cost-model API: /api/cost-models/<id>/evaluate/ and the plots' JSON twins at
/api/costs/plots/<name>/. Hand-computed numbers, whole documents, every 400, query counts."""

import pytest

from catalogue.models import CostModel
from explorer.costs.plots import PLOT_NAMES
from explorer.costs.presets import PRESETS
from tests.helpers import clear_caches, make_category, make_cost_model, make_technique

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_throttle():
    """The anonymous throttle counts in the cache; these tests make many requests."""
    clear_caches()
    yield
    clear_caches()


def model_id(label: str) -> int:
    return CostModel.objects.get(label=label).pk


@pytest.fixture
def density(db):
    """A small model of our own: N*C/(C - 3), which has no value at C = 3."""
    technique = make_technique("density", make_category())
    return make_cost_model(
        technique,
        label="Density: work",
        formula="N*C/(C - 3)",
        status="recalled",
        status_note="Made up for the tests.",
    )


# Evaluate ---------------------------------------------------------------------------------------


def test_it_evaluates_the_direct_convolution_work_of_alexnet_conv1(client, survey):
    pk = model_id("Convolution (direct), forward: work")
    response = client.get(
        f"/api/cost-models/{pk}/evaluate/?N=1&C_in=3&C_out=96&H_out=55&W_out=55&K_y=11&K_x=11"
    )
    assert response.status_code == 200
    assert response.json()["value"] == 105_415_200  # 3·96·55·55·11·11


def test_it_evaluates_the_tree_allreduce_time_as_a_whole_document(client, survey):
    pk = model_id("Tree allreduce: time")
    response = client.get(f"/api/cost-models/{pk}/evaluate/?P=8&L=1e-6&gamma=4&m=1e6&G=1e-9")
    assert response.status_code == 200
    # 2·log2(8)·(1e-6 + 4·1e6·1e-9) = 6 · 0.004001
    assert response.json() == {
        "id": pk,
        "label": "Tree allreduce: time",
        "formula": "2*log2(P)*(L + gamma*m*G)",
        "status": "confirmed",
        "status_note": (
            "S2 (FACTS.md §2.4): T_tree = 2·log2(P)·(L + γmG), a reduction up a tree followed by "
            "a broadcast. LogP [53] without o and g: L latency, G cost per byte, P machines, m "
            "elements of γ bytes."
        ),
        "quantity": "time",
        "asymptotic": False,
        "unit": "s",
        "value": pytest.approx(0.024006),
        "variables": {"P": 8, "L": 1e-6, "gamma": 4, "m": 1_000_000, "G": 1e-9},
    }


def test_it_uses_the_defaults_for_the_variables_not_given(client, density):
    document = client.get(f"/api/cost-models/{density.pk}/evaluate/?C=4").json()
    assert document == {
        "id": density.pk,
        "label": "Density: work",
        "formula": "N*C/(C - 3)",
        "status": "recalled",
        "status_note": "Made up for the tests.",
        "quantity": "work",
        "asymptotic": False,
        "unit": "operations",
        "value": 128,  # N = 32 (default) · 4 / 1
        "variables": {"N": 32, "C": 4},
    }


def test_it_sweeps_one_variable(client, density):
    response = client.get(
        f"/api/cost-models/{density.pk}/evaluate/?sweep=N&from=1&to=1000&points=4&C=5"
    )
    document = response.json()
    assert response.status_code == 200
    assert "value" not in document
    assert document["variables"] == {"C": 5}
    assert document["sweep"] == {
        "variable": "N",
        "from": 1,
        "to": 1000,
        "points": 4,
        "scale": "log",
    }
    assert document["series"]["x"] == [1, pytest.approx(10), pytest.approx(100), 1000]
    assert document["series"]["y"] == [2.5, pytest.approx(25), pytest.approx(250), 2500]


def test_it_sweeps_linearly_and_up_to_the_variables_bounds(client, density):
    document = client.get(
        f"/api/cost-models/{density.pk}/evaluate/?sweep=C&from=4&to=8&points=5&scale=linear"
    ).json()
    assert document["series"] == {"x": [4, 5, 6, 7, 8], "y": [128, 80, 64, 56, 51.2]}
    document = client.get(f"/api/cost-models/{density.pk}/evaluate/?sweep=N&C=4").json()
    assert document["sweep"] | {"points": 0} == {
        "variable": "N",
        "from": 1,
        "to": 1024,
        "points": 0,
        "scale": "log",
    }
    assert len(document["series"]["x"]) == 50


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("N=0", {"N": ["N must be between 1 and 1024 (got 0)"]}),
        ("N=2000", {"N": ["N must be between 1 and 1024 (got 2000)"]}),
        ("N=abc", {"N": ["N must be a number between 1 and 1024 (got 'abc')"]}),
        ("N=inf", {"N": ["N must be a number between 1 and 1024 (got 'inf')"]}),
        ("N=1&N=2", {"N": ["N is given 2 times; give it once"]}),
        ("K=3", {"K": ["unknown parameter 'K' (allowed: C, N, from, points, scale, sweep, to)"]}),
        ("C=3", {"formula": ["division by zero at position 6"]}),
        ("sweep=C&from=3&to=9", {"formula": ["division by zero at position 6"]}),
        ("sweep=K", {"sweep": ["sweep must be one of this model's variables: N, C (got 'K')"]}),
        ("sweep=N&N=3", {"N": ["N is swept: give from and to, not N"]}),
        ("sweep=N&from=9&to=2", {"from": ["from must be less than to (got from=9, to=2)"]}),
        ("sweep=N&to=2000", {"to": ["to must be between 1 and 1024 (got 2000)"]}),
        ("sweep=N&points=201", {"points": ["points must be between 2 and 200 (got 201)"]}),
        (
            "sweep=N&points=2.5",
            {"points": ["points must be a whole number between 2 and 200 (got '2.5')"]},
        ),
        ("sweep=N&points=1", {"points": ["points must be between 2 and 200 (got 1)"]}),
        ("sweep=N&scale=cubic", {"scale": ["scale must be log or linear (got 'cubic')"]}),
        ("from=1", {"from": ["from needs sweep=<variable>"]}),
    ],
)
def test_it_refuses_bad_evaluations_with_a_message(client, density, query, errors):
    response = client.get(f"/api/cost-models/{density.pk}/evaluate/?{query}")
    assert response.status_code == 400
    assert response.json()["errors"] == errors


def test_it_refuses_a_log_of_zero_and_a_log_sweep_from_zero(client, survey):
    technique = make_technique("logarithm", make_category("logs"))
    model = make_cost_model(technique, formula="log(C - 3)")
    response = client.get(f"/api/cost-models/{model.pk}/evaluate/?C=3")
    assert (response.status_code, response.json()["errors"]) == (
        400,
        {"formula": ["result is not a finite number at position 1"]},
    )
    pk = model_id("Tree allreduce: time")  # L may be 0, but not on a log scale
    response = client.get(f"/api/cost-models/{pk}/evaluate/?sweep=L")
    assert response.json()["errors"] == {
        "from": ["from must be greater than 0 on a log scale (got 0)"]
    }


def test_it_answers_404_for_a_missing_model(client, db):
    assert client.get("/api/cost-models/999999/evaluate/").status_code == 404


def test_it_evaluates_in_one_query(client, density, django_assert_num_queries):
    # One more query than the view itself makes: the catalogue version that keys the
    # response cache (explorer/web/middleware.py).
    # 1 the cost model with its technique
    with django_assert_num_queries(2):
        assert (
            client.get(
                f"/api/cost-models/{density.pk}/evaluate/?sweep=N&points=200&C=4"
            ).status_code
            == 200
        )


def test_it_evaluates_every_fixture_model_at_its_defaults(client, survey):
    for pk in CostModel.objects.values_list("pk", flat=True):
        response = client.get(f"/api/cost-models/{pk}/evaluate/")
        assert response.status_code == 200, response.json()


def test_it_documents_the_evaluate_parameters_in_the_schema(client, db):
    schema = client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/cost-models/{id}/evaluate/"]["get"]
    names = [parameter["name"] for parameter in operation["parameters"]]
    assert names[:1] == ["id"] or "id" in names
    assert {"variables", "sweep"} <= set(names)
    # The sweep's parameters in one exploded object: from, to, points, scale only with sweep.
    [sweep] = [p["schema"] for p in operation["parameters"] if p["name"] == "sweep"]
    assert (set(sweep["properties"]), sweep["required"]) == (
        {"sweep", "from", "to", "points", "scale"},
        ["sweep"],
    )
    assert sweep["properties"]["points"] == {"type": "integer", "minimum": 2, "maximum": 200}
    assert "/api/costs/plots/{name}/" in schema["paths"]


# The plots' JSON twins ---------------------------------------------------------------------------


def test_it_serves_every_plot_for_every_preset_from_the_real_fixtures(client, survey):
    for slug in PRESETS:
        for name in PLOT_NAMES:
            response = client.get(f"/api/costs/plots/{name}/?preset={slug}")
            assert response.status_code == 200, (slug, name, response.json())
            document = response.json()
            assert set(document) == {
                "name",
                "description",
                "formulas",
                "unconfirmed",
                "figure",
                "data",
                "html_url",
            }
            assert document["figure"]["data"]
            assert document["html_url"] == f"http://testserver/costs/?preset={slug}"


def test_it_gives_the_wd_plane_points_with_their_status_and_works(client, survey):
    document = client.get("/api/costs/plots/wd-plane/?preset=alexnet-conv1&N=1").json()
    points = {p["key"]: p for p in document["data"]["points"]}
    direct = points["conv-direct"]
    assert (direct["work"], direct["depth"], direct["confirmed"]) == (105_415_200, 10, True)
    assert points["conv-fft"]["works"] == ["mathieu2014fast", "vasilache2015fast"]
    assert points["conv-winograd"]["doubtful"] == ["Winograd convolution (Table 6): work"]
    assert document["data"]["layer"] | {"note": ""} == {
        "preset": "alexnet-conv1",
        "name": "AlexNet conv1: 11×11, stride 4, 96 filters on 227×227×3",
        "source": "AlexNet [136] (krizhevsky2012imagenet)",
        "source_key": "krizhevsky2012imagenet",
        "note": "",
        "kind": "conv",
        "sizes": {
            "N": 1,
            "C_in": 3,
            "C_out": 96,
            "H": 227,
            "W": 227,
            "K": 11,
            "stride": 4,
            "pad": 0,
            "H_out": 55,
            "W_out": 55,
            "pool": 3,
            "m_tile": 2,
        },
        "custom": True,
    }


def test_it_marks_allreduce_crossovers_in_the_api(client, survey):
    document = client.get("/api/costs/plots/allreduce-m/?P=8&L=1e-6&G=1e-10&gamma=4").json()
    pairs = [(c["a"], c["b"]) for c in document["data"]["crossovers"]]
    assert ("Tree allreduce: time", "Pipelined ring allreduce: time") in pairs
    assert "Allreduce lower bound as S1 prints it" in document["unconfirmed"]


@pytest.mark.parametrize(
    ("url", "parameter", "message"),
    [
        ("/api/costs/plots/wd-plane/?colour=red", "colour", "unknown parameter 'colour'"),
        ("/api/costs/plots/wd-plane/?N=0", "N", "N must be between 1 and 65536 (got 0)"),
        ("/api/costs/plots/brent/?op=nope", "op", "op must be one of"),
        ("/api/costs/plots/allreduce-p/?P_max=1e9", "P_max", "P_max must be between 1 and 65536"),
    ],
)
def test_it_refuses_bad_plot_parameters(client, survey, url, parameter, message):
    response = client.get(url)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and list(body["errors"]) == [parameter]
    [error] = body["errors"][parameter]
    assert message in error


def test_it_answers_404_for_an_unknown_plot(client, db):
    assert client.get("/api/costs/plots/pie-chart/").status_code == 404


def test_it_builds_a_plot_in_three_queries(client, survey, django_assert_num_queries):
    # The catalogue version, read once per request (explorer/web/middleware.py), keys the response
    # cache and the cost models kept per version (catalogue/version.py); then 1 the cost models
    # with their techniques, 2 the models' works, 3 the techniques' works
    with django_assert_num_queries(4):
        assert client.get("/api/costs/plots/wd-plane/").status_code == 200
    # The cost models kept: the version only.
    with django_assert_num_queries(1):
        assert client.get("/api/costs/plots/allreduce-m/").status_code == 200
