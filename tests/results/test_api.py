"""/api/results/ and /api/results/csv/: whole documents for a query, the planner's predictions
beside the measurements, refusals named by parameter, and a constant number of queries."""

import csv
import io

import pytest

from catalogue.models import Result, Technique, Work
from explorer.results.documents import all_rows, chart_points


def test_it_answers_one_result_as_a_whole_document(client, survey):
    url = "/api/results/?network=alexnet&devices_max=2"
    document = client.get(url).json()
    assert document["count"] == 1 and document["total"] == Result.objects.count()
    (row,) = document["results"]
    read = "http://users.ics.aalto.fi/perellm1/thesis/summaries_html/node64.html"
    cacm = (
        "https://cacm.acm.org/magazines/2017/6/217745-imagenet-classification-with-deep-"
        "convolutional-neural-networks/fulltext"
    )
    assert row == {
        "id": "krizhevsky2012-alexnet-2gpu",
        "work": {
            "key": "krizhevsky2012imagenet",
            "title": "ImageNet Classification with Deep Convolutional Neural Networks",
            "url": "/works/krizhevsky2012imagenet/",
        },
        "outside_catalogue": None,
        "year": 2012,
        "config": {
            "network": "alexnet",
            "dataset": "ImageNet LSVRC-2010",
            "global_batch": 128.0,
            "batch_unit": "images",
            "devices": 2,
            "device_kind": "NVIDIA GTX 580 3GB",
            "interconnect": "PCIe within one machine",
            "precision": "fp32",
            "family": "model",
            "strategy": "model parallelism: each layer's kernels split across the two GPUs",
            "layout": {"dp": 1, "tp": 2, "pp": 1},
            "parameters": None,
        },
        "techniques": [{"slug": "model-parallelism", "name": "Model parallelism"}],
        "figures": [
            {
                "name": "time_to_train_s",
                "value": 518400,
                "unit": "s",
                "status": "read",
                "url": read,
                "derivation": "",
                "source_kind": "secondary",
            },
            {
                "name": "accuracy",
                "value": 0.625,
                "unit": "fraction",
                "status": "read",
                "url": cacm,
                "derivation": "",
                "source_kind": "first-hand",
            },
        ],
        "status": "read",
        "source_url": read,
        "source_kind": "secondary",
        "config_sources": {"devices": read, "device_kind": read},
        "location": "Section 3.2 and Section 5",
        "claim": (
            "Five to six days on two GTX 580 3GB GPUs; top-1 test error 37.5% on ILSVRC-2010."
        ),
        "note": (
            "time_to_train is the upper end of 'five to six days'; accuracy = 1 - 37.5% top-1 "
            "error; batch 128 recalled."
        ),
        "prediction": {
            "status": "not expressible",
            "reason": (
                "the planner's model parallelism for a CNN splits whole layers between devices; "
                "AlexNet split each layer's kernels between its two GPUs (no such layout), and "
                "its epochs are not recorded"
            ),
        },
    }
    assert document["summary"] == [
        {
            "family": "model",
            "results": 1,
            "predicted": 0,
            "median_ratio": None,
            "median_ratio_at_peak": None,
            "worst_ratio": None,
        }
    ]
    assert document["api_url"] == url
    assert document["page_url"] == "/results/?network=alexnet&devices_max=2"
    assert document["csv_url"] == "/api/results/csv/?network=alexnet&devices_max=2"


def test_it_puts_the_planners_prediction_beside_goyal_et_al(client, survey):
    document = client.get("/api/results/?technique=allreduce&ordering=-ratio").json()
    goyal = next(r for r in document["results"] if r["id"] == "goyal2017-resnet50-256gpu")
    prediction = goyal["prediction"]
    assert prediction["status"] == "predicted"
    assert prediction["strategy"] == "data-ring"
    assert prediction["steps"] == 14076  # ceil(90 epochs x 1,281,167 images / 8192)
    assert prediction["measured_time_to_train_s"] == 3600
    ratio = prediction["predicted_time_to_train_s"] / 3600
    assert prediction["ratio"] == pytest.approx(ratio)
    assert prediction["inputs"] == {
        "P": 256,
        "batch": 8192,
        "flops": 10.6e12,
        "memory_gb": 16.0,
        "latency_us": 10.0,
        "bandwidth_gbs": 6.25,
        "gamma": 4,
    }
    assert "recalled" in prediction["assumptions"]
    ratios = [r["prediction"].get("ratio") for r in document["results"]]
    known = [r for r in ratios if r is not None]
    assert known == sorted(known, reverse=True) and ratios[: len(known)] == known
    data = next(row for row in document["summary"] if row["family"] == "data")
    assert data["predicted"] == len(known)


def test_it_puts_the_planners_step_beside_megatron_lm_2021(client, survey):
    """A transformer run measured by its FLOP/s per device: the planner's step for the paper's
    layout on its A100 preset against the measured step (the paper's recompute-inclusive count
    over P x its FLOP/s); at the calibrated efficiency and at the peak."""
    document = client.get("/api/results/?family=hybrid").json()
    rows = {r["id"]: r["prediction"] for r in document["results"]}
    trillion = rows["narayanan2021-megatron-1t"]
    assert trillion["status"] == "predicted" and trillion["quantity"] == "step time"
    assert trillion["inputs"]["layout"] == {"dp": 6, "tp": 8, "pp": 64}
    assert trillion["inputs"]["P"] == 3072 and trillion["inputs"]["batch"] == 3072
    assert trillion["ratio"] == pytest.approx(
        trillion["step_time_s"] / trillion["measured_step_time_s"]
    )
    # At the peak, the planner is optimistic: only the bubble and the exchanges slow it.
    assert 0.5 < trillion["ratio_at_peak"] < 0.7
    assert "recomputation full" in trillion["assumptions"]
    assert trillion["efficiency"]["basis"] and trillion["efficiency"]["family"] == "decoder"
    assert rows["brown2020-gpt3-175b"]["quantity"] == "training FLOPs (a count)"
    assert rows["le2012-autoencoder-16000cores"]["status"] == "not expressible"
    hybrid = next(row for row in document["summary"] if row["family"] == "hybrid")
    assert hybrid["predicted"] == 10 and hybrid["median_ratio_at_peak"] < 1
    page = client.get("/results/?family=hybrid").content.decode()
    assert "s measured (3d): ratio" in page and "at the peak" in page


def test_the_document_counts_the_predicted_results(client, survey):
    """A regression guard on the whole document: 9 of 43 were predicted before issue 38."""
    document = client.get("/api/results/").json()
    predicted = [r for r in document["results"] if r["prediction"]["status"] == "predicted"]
    assert len(predicted) >= 25
    assert sum(row["predicted"] for row in document["summary"]) == len(predicted)
    worst = document["worst_predicted"]
    assert len(worst) == 3 and all(w["quantity"] and w["ratio_at_peak"] for w in worst)


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("bogus=1", "bogus"),
        ("ordering=colour", "ordering"),
        ("year_min=x", "year_min"),
        ("technique=telepathy", "technique"),
        ("network=a&network=b", "network"),
    ],
)
def test_it_refuses_a_bad_parameter_naming_it(client, survey, query, parameter):
    for path in ("/api/results/", "/api/results/csv/"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 400, (path, query)
        assert parameter in response.json()["errors"]
    assert client.get(f"/results/?{query}").status_code == 400


@pytest.mark.parametrize("parameter", ["ordering", "status", "technique", "year_min", "family"])
def test_it_reads_an_empty_parameter_as_not_given_as_its_schema_says(client, survey, parameter):
    # The house's one rule for every endpoint (explorer/web/forms.py): an empty value, as a blank
    # form field sends it, is the parameter left out, and the schema says so (allowEmptyValue).
    for path in ("/api/results/", "/api/results/csv/"):
        response = client.get(f"{path}?{parameter}=&network=resnet-50")
        assert response.status_code == 200
        given = client.get(f"{path}?network=resnet-50")
        if path.endswith("csv/"):
            assert response.content == given.content
        else:
            assert response.json()["results"] == given.json()["results"]
    schema = client.get("/api/schema/?format=json").json()
    declared = {p["name"]: p for p in schema["paths"]["/api/results/"]["get"]["parameters"]}
    assert declared[parameter]["allowEmptyValue"] is True


def test_the_page_leaves_out_the_blank_fields_its_form_sends(client, survey):
    blank = "technique=&network=resnet-50&family=&status=&year_min=&ordering="
    response = client.get(f"/results/?{blank}")
    assert response.status_code == 200
    html = response.content.decode()
    # Its twins carry the parameters given, which the API accepts as they are.
    assert 'href="/api/results/csv/?network=resnet-50"' in html
    assert client.get("/api/results/?network=resnet-50").status_code == 200
    assert client.get("/results/?status=&status=").status_code == 200
    assert client.get("/results/?bogus=").status_code == 400


@pytest.mark.parametrize(
    "path",
    ["/api/results/", "/api/results/csv/", "/api/results/mlperf/", "/api/results/mlperf/csv/"],
)
def test_it_lists_the_catalogue_techniques_as_the_schema_enum(client, survey, path):
    """The technique filter is an enum of the catalogue's slugs: every value the schema offers
    is read, and another is a 400 that names the parameter and lists what is allowed (issue 44:
    `technique=0` matched the schema's pattern and was refused)."""
    schema = client.get("/api/schema/?format=json").json()
    declared = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
    offered = declared["technique"]["schema"]["enum"]
    assert sorted(offered) == sorted(Technique.objects.values_list("slug", flat=True))
    assert client.get(f"{path}?technique={offered[0]}").status_code == 200
    refused = client.get(f"{path}?technique=0").json()
    assert list(refused["errors"]) == ["technique"]
    assert refused["errors"]["technique"][0].startswith("must be one of ")
    assert "allreduce" in refused["errors"]["technique"][0]


def test_the_schema_states_what_the_form_reads(client, db):
    schema = client.get("/api/schema/?format=json").json()
    parameters = {
        p["name"]: p["schema"] for p in schema["paths"]["/api/results/"]["get"]["parameters"]
    }
    # No technique in an empty catalogue: no enum (an empty one is not valid OpenAPI).
    assert parameters["technique"] == {"type": "string", "pattern": "^[^\\x00]*$"}
    assert parameters["status"]["enum"] == ["read", "recalled"]
    assert "" not in parameters["ordering"]["enum"]


def test_work_titles_are_shown_as_api_works_shows_them(client, survey):
    document = client.get("/api/results/?network=resnet-50&devices_min=256").json()
    goyal = next(r for r in document["results"] if r["id"] == "goyal2017-resnet50-256gpu")
    title = goyal["work"]["title"]
    assert title == "Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour"
    assert client.get("/api/works/goyal2017accurate/").json()["title"] == title
    assert not any("{" in r["work"]["title"] for r in document["results"] if r["work"])


def test_it_exports_the_filtered_results_as_csv(client, survey):
    response = client.get("/api/results/csv/?family=data&ordering=year")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == Result.objects.filter(family="data").count()
    assert [int(r["year"]) for r in rows] == sorted(int(r["year"]) for r in rows)
    goyal = next(r for r in rows if r["id"] == "goyal2017-resnet50-256gpu")
    assert goyal["time_to_train_s"] == "3600" and goyal["status"] == "read"
    assert float(goyal["ratio"]) > 0


def test_it_answers_in_a_constant_number_of_queries(client, survey, django_assert_max_num_queries):
    client.get("/api/results/")  # the rows and predictions, once per catalogue version
    with django_assert_max_num_queries(3):
        assert client.get("/api/results/?family=hybrid&ordering=-utilisation").status_code == 200
    with django_assert_max_num_queries(3):
        assert client.get("/results/?network=resnet-50").status_code == 200


def test_the_rows_are_read_in_a_constant_number_of_queries(survey, django_assert_num_queries):
    with django_assert_num_queries(2):  # the results with their works, then the techniques
        rows = [(r.work, list(r.techniques.all())) for r in Result.objects.for_list()]
    assert len(rows) == Result.objects.count()


def test_the_page_draws_both_record_charts(client, survey):
    html = client.get("/results/").content.decode()
    assert 'data-figure="results-resnet"' in html and 'id="results-resnet"' in html
    assert 'data-figure="results-utilisation"' in html
    assert "vendor/plotly/plotly.min.js" in html and "js/results.js" in html


def test_a_hub_shows_its_techniques_results_and_a_work_page_its_own(client, survey):
    document = client.get("/api/categories/net-data/").json()
    ids = {row["id"] for row in document["results"]}
    assert {"goyal2017-resnet50-256gpu", "jia2018-resnet50-2048gpu"} <= ids
    assert "krizhevsky2012-alexnet-2gpu" not in ids  # model parallelism only
    goyal = next(row for row in document["results"] if row["id"] == "goyal2017-resnet50-256gpu")
    assert goyal["html_url"] == "http://testserver/results/#result-goyal2017-resnet50-256gpu"
    html = client.get("/categories/net-data/").content.decode()
    assert 'href="/results/#result-goyal2017-resnet50-256gpu"' in html
    page = client.get("/works/goyal2017accurate/").content.decode()
    assert 'id="results"' in page and "time_to_train_s 60 min" in page
    assert 'href="https://research.fb.com/publications/imagenet1kin1h/"' in page
    assert 'href="/results/#result-krizhevsky2012-alexnet-2gpu"' not in page


def test_the_chart_names_a_work_outside_the_catalogue_by_its_title(client, survey):
    points = chart_points(all_rows())["resnet50_time_to_train"]
    akiba = next(p for p in points if p["id"].startswith("akiba2017"))
    assert akiba["work"] == (
        "Extremely Large Minibatch SGD: Training ResNet-50 on ImageNet in 15 Minutes "
        "(not in the catalogue)"
    )
    assert not Work.objects.filter(key="akiba2017extremely").exists()
    # Mikami et al. is a work after the survey now: its results point to it by key.
    mikami = next(p for p in points if p["id"] == "mikami2018-resnet50-224s")
    assert mikami["work"] == "mikami2018massively"
    assert Work.objects.filter(key="mikami2018massively").exists()
    goyal = next(p for p in points if p["id"] == "goyal2017-resnet50-256gpu")
    assert goyal["work"] == "goyal2017accurate"
