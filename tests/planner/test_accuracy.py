"""The planner states its accuracy: /planner/accuracy/ and /api/planner/accuracy/ over the
calibration's document (here the hand-made TEST document of accuracy_testdata.py), its summary
on /planner/, /results/ and /results/mlperf/, and the measured runs comparable to a plan."""

import json
import re

import pytest

from catalogue.models import MlperfSystem
from explorer.planner.accuracy import api as accuracy_api
from explorer.planner.accuracy import calibration
from explorer.planner.accuracy import report as accuracy
from tests.helpers import make_mlperf_score
from tests.planner import accuracy_testdata


@pytest.fixture(autouse=True)
def _fresh_default_efficiency():
    """default_efficiency is cached per process: a value computed from the TEST document must
    not outlive the test (the golden answers in the same worker read the real fixture)."""
    calibration.default_efficiency.cache_clear()
    yield
    calibration.default_efficiency.cache_clear()


@pytest.fixture
def measured(db, monkeypatch):
    """The TEST accuracy document, and the MLPerf systems its predictions name (but the fitted
    run's): their pks by (system, benchmark)."""
    monkeypatch.setattr(calibration, "accuracy", accuracy_testdata.document)
    monkeypatch.setattr(accuracy_api, "accuracy", accuracy_testdata.document)
    monkeypatch.setattr(
        calibration,
        "comparable_runs",
        lambda device, family, devices: accuracy_testdata.comparable(),
    )
    scores = {
        ("dgxh100_n8", "bert"): make_mlperf_score("v4.0", "bert", "dgxh100_n8"),
        ("dgxh100_n64", "bert"): make_mlperf_score("v4.0", "bert", "dgxh100_n64"),
        ("dgxh100_n8", "gpt3"): make_mlperf_score("v4.0", "gpt3", "dgxh100_n8"),
    }
    make_mlperf_score("v3.1", "bert", "dgxh100_n8")  # another round's system of the same name
    return {key: score.system_id for key, score in scores.items()}


def score_url(pks, system, benchmark):
    return f"/results/mlperf/systems/{pks[(system, benchmark)]}/{benchmark}/"


def test_it_answers_the_whole_accuracy_document(client, measured):
    response = client.get("/api/planner/accuracy/")
    assert response.status_code == 200
    source = accuracy_testdata.document()
    whole = {k: v for k, v in source.items() if k != "predictions"} | {
        "predictions_count": 4,
        "summary": {
            "status": "built",
            "held_out": 3,
            "median": 0.125,
            "p90": 0.5,  # the calibration's row for every benchmark and family
            "shown_median": "12 %",
            "shown_p90": "50 %",
            "predicted": 4,
            "scores": 8,
            "fitted_on": ["v3.1"],
            "held_out_rounds": ["v4.0"],
            "systematic": 1,
        },
        "page_url": "/planner/accuracy/",
        "api_url": "/api/planner/accuracy/",
    }
    assert response.json() == whole
    # The predictions on request, paged, each linked to its score's page.
    urls = [
        score_url(measured, "dgxh100_n8", "bert"),
        score_url(measured, "dgxh100_n64", "bert"),
        score_url(measured, "dgxh100_n8", "gpt3"),
        "",  # v3.1's dgxh100_n8_fit is not in the database: no page to link
    ]
    paged = client.get("/api/planner/accuracy/?predictions=1&page_size=3&page=2").json()
    assert paged == whole | {
        "predictions": [source["predictions"][3] | {"url": urls[3]}],
        "page": {"number": 2, "size": 3, "pages": 2},
    }
    first = client.get("/api/planner/accuracy/?predictions=1").json()["predictions"]
    assert [p["url"] for p in first] == urls


def test_the_page_shows_the_errors_the_model_the_chart_and_the_coverage(client, measured):
    response = client.get("/planner/accuracy/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "fitted on v3.1" in html and "evaluated on v4.0" in html
    rows = re.findall(r"<td>([^<]*)</td><td>([^<]*)</td><td>(\d+)</td>\n      <td>", html)
    assert rows[:3] == [
        ("every benchmark", "every family", "3"),
        ("bert", "data", "2"),
        ("gpt3", "3d", "1"),
    ]
    assert "<td>10 %</td><td>30 %</td><td>1.10</td>" in html
    assert "gpt3 (3d) misses the targets: median 60 %, 90th percentile 60 % over 1 run." in html
    assert "TEST: the planner predicts 0.4 of GPT-3&#x27;s measured throughput" in html
    assert "<strong>efficiency = a · accelerators ** b</strong>" in html
    fitted = re.search(r'id="efficiency-fitted">.*?</table>', html, re.S).group(0)
    assert "<td>NVIDIA H100 SXM5 80GB</td><td>encoder</td>" in fitted
    everywhere = re.search(r'id="efficiency-all">.*?</table>', html, re.S).group(0)
    assert "<td>every device</td><td>every family</td>\n    <td>0.400</td>" in everywhere
    assert "<td>3 of 6</td><td>50 %</td>" in html
    assert "<li>TEST: the device is not in the catalogue (3)</li>" in html
    # The worst held-out prediction first, linked to its score's page.
    worst = re.search(r'<table class="numbers accuracy" id="worst">.*?</table>', html, re.S)
    first = re.findall(r'<a href="([^"]+)">', worst.group(0))[0]
    assert first == score_url(measured, "dgxh100_n8", "gpt3")
    figure = json.loads(re.search(r'id="accuracy-figure"[^>]*>(.*?)</script>', html).group(1))
    bert, gpt3, diagonal, *_ = figure["data"]
    assert bert["customdata"] == [
        score_url(measured, "dgxh100_n8", "bert"),
        score_url(measured, "dgxh100_n64", "bert"),
    ]
    assert (bert["x"], bert["y"]) == ([20000.0, 120000.0], [22500.0, 108000.0])
    assert gpt3["name"] == "gpt3" and diagonal["x"] == diagonal["y"]
    assert figure["layout"]["xaxis"]["type"] == figure["layout"]["yaxis"]["type"] == "log"


def test_it_reads_the_database_in_a_constant_number_of_queries(
    client, measured, django_assert_max_num_queries
):
    with django_assert_max_num_queries(2):  # the catalogue's version, every system's pk
        assert client.get("/planner/accuracy/").status_code == 200
    for _ in range(20):
        make_mlperf_score("v4.0", "bert", f"another_{_}")
    with django_assert_max_num_queries(2):
        assert client.get("/api/planner/accuracy/?predictions=1").status_code == 200


def test_it_says_when_the_document_is_not_built(client, db, monkeypatch):
    monkeypatch.setattr(calibration, "accuracy", _not_built)
    monkeypatch.setattr(accuracy_api, "accuracy", _not_built)
    html = client.get("/planner/accuracy/").content.decode()
    assert 'id="not-built"' in html
    assert client.get("/api/planner/accuracy/").json()["summary"]["held_out"] == 0
    assert (
        "accuracy against measured runs is not built yet"
        in client.get("/results/").content.decode()
    )


def _not_built():
    return {
        "format": 1,
        "status": "not built",
        "model": {"formula": "", "description": ""},
        "split": {"by": "round", "fitted_on": [], "held_out": [], "why": ""},
        **{name: [] for name in ("efficiency", "errors", "predictions")},
        **{name: [] for name in ("not_predicted", "coverage", "systematic")},
    }


def test_it_refuses_a_parameter(client, measured):
    assert client.get("/planner/accuracy/?benchmark=bert").status_code == 400
    response = client.get("/api/planner/accuracy/?benchmark=bert")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"benchmark"}


def test_the_planner_states_its_accuracy_and_the_runs_like_the_plan(client, survey, measured):
    html = client.get("/planner/?network=bert-large&device=h100-sxm&P=64").content.decode()
    assert "its predicted throughput is off by a\nmedian <strong>12 %</strong>" in html
    assert "reached <strong>38–42 % of peak</strong> in model FLOPs (MFU) (3 runs)" in html
    assert f'<a href="{score_url(measured, "dgxh100_n64", "bert")}">' in html
    found = client.get("/api/planner/?network=bert-large&device=h100-sxm&P=64").json()["accuracy"]
    assert found["mlperf"] == {
        "held_out": 3,
        "median": found["mlperf"]["median"],
        "p90": found["mlperf"]["p90"],
        "shown_median": found["mlperf"]["shown_median"],
        "shown_p90": found["mlperf"]["shown_p90"],
    }
    assert set(found["published"]) <= {"n", "median", "p90", "shown_median", "shown_p90"} | {
        "within_15",
        "bias",
    }
    assert {k: v for k, v in found.items() if k not in ("runs", "mlperf", "published")} == {
        "device": "h100-sxm",
        "family": "encoder",
        "devices": 64,
        "low": 0.38,
        "high": 0.42,
        "shown_range": "38–42 %",
        "n": 3,
        "widened": "",
        "page_url": "/planner/accuracy/",
    }
    # The nearest in scale first (64 accelerators), the newest round first among them.
    assert [run["url"] for run in found["runs"]] == [
        score_url(measured, "dgxh100_n8", "bert"),
        "",  # v3.1's dgxh100_n8_fit, not in the database
        score_url(measured, "dgxh100_n64", "bert"),
    ]


def test_the_results_pages_state_the_accuracy_and_link_it(client, survey, measured):
    for url in ("/results/", "/results/mlperf/?benchmark=bert"):
        html = client.get(url).content.decode()
        assert "on 3 MLPerf Training scores it was not fitted on" in html, url
        assert '<a href="/planner/accuracy/">' in html, url
    mlperf = client.get("/results/mlperf/?benchmark=bert").content.decode()
    assert "bert, data: median error 10 %, 90th percentile 30 % over 2 held-out scores." in mlperf


def test_percentiles_are_linear_between_ranks():
    assert accuracy.percentile([], 0.9) is None
    assert accuracy.percentile([0.3], 0.9) == 0.3
    assert accuracy.percentile([0.0, 1.0], 0.9) == pytest.approx(0.9)
    assert accuracy.percentile([0.4, 0.1, 0.2, 0.3, 0.0], 0.5) == pytest.approx(0.2)


def test_the_figure_escapes_names_from_the_data():
    point = accuracy_testdata.prediction(system_id="<b>x</b>", url="/a/")
    (trace, *_) = accuracy.figure([point])["data"]
    assert "<b>" not in trace["text"][0] and "&lt;b&gt;" in trace["text"][0]


def test_a_score_page_shows_the_planners_prediction_of_it(client, survey, measured):
    predicted = score_url(measured, "dgxh100_n8", "bert")
    document = client.get("/api" + predicted).json()
    assert document["accuracy_url"] == "/planner/accuracy/"
    assert document["prediction"] == {
        "predicted_throughput": 22500.0,
        "measured_throughput": 20000.0,
        "throughput_unit": "samples/s",
        "ratio": 1.125,
        "predicted_minutes": 1.78,
        "layout": {"dp": 64, "tp": 1, "pp": 1},
        "layout_basis": None,
        "strategy": "data-ring",
        "efficiency": 0.45,
        "efficiency_basis": "device × family",
        "peak_fraction": 0.4,
        "peak_note": None,
        "precision": None,
        "held_out": True,
        "assumed": None,
    }
    page = client.get(predicted).content.decode()
    assert "Predicted <strong>22,500 samples/s</strong>\nagainst 20,000 measured" in page
    assert "<strong>1.12</strong>" in page or "<strong>1.13</strong>" in page
    assert "dp 64 × tp 1 × pp 1" in page
    assert 'href="/planner/accuracy/"' in page
    # Another round's system of the same name is not predicted: the page says so, with the link.
    v31 = MlperfSystem.objects.get(round__version="v3.1", system_id="dgxh100_n8")
    unpredicted = client.get(f"/results/mlperf/systems/{v31.pk}/bert/").content.decode()
    assert "The planner does not predict this score" in unpredicted
    assert client.get(f"/api/results/mlperf/systems/{v31.pk}/bert/").json()["prediction"] is None
