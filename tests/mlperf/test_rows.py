"""/results/mlperf/ and its twins, and the pages of a system and of one of its benchmarks: whole
documents, filters, refusals named by parameter, constant query counts, escaped chart labels."""

import csv
import io
from types import MappingProxyType, SimpleNamespace

import pytest

from catalogue.models import MlperfSystem, Technique
from explorer.mlperf import rows as mlperf_rows
from tests.helpers import make_mlperf_score

COMMIT = "0" * 40
RULE_URL = "https://github.com/mlcommons/training_policies/blob/master/training_rules.adoc"


@pytest.fixture
def scores(survey, monkeypatch):
    """Two NVIDIA A100 systems of one round (a scaling series) and a Google one; the device's
    peak set here (the device catalogue's values are read elsewhere)."""
    peak = SimpleNamespace(peak_flops=MappingProxyType({"bf16": 312e12, "fp16": 312e12}))
    monkeypatch.setattr(mlperf_rows, "devices", lambda: {"a100-sxm4-80gb": peak})
    a100 = {"device_slug": "a100-sxm4-80gb"}
    make_mlperf_score(**a100)
    make_mlperf_score(
        system_id="dgxa100_n16",
        nodes=16,
        accelerators=128,
        minutes=(16, 15, 17, 15.5, 16.5),
        **a100,
    )
    make_mlperf_score(
        system_id="tpu-v4-<b>",
        submitter="Google<i>",
        accelerators=256,
        nodes=64,
        accelerator="TPU v4",
        device_slug="tpu-v4",
        division="open",
    )


def test_it_answers_a_score_as_a_whole_document(client, scores):
    document = client.get("/api/results/mlperf/?submitter=nvidia&devices_max=64").json()
    pk = MlperfSystem.objects.get(system_id="dgxa100_n8").pk
    resnet50 = mlperf_rows.flop_counts()["resnet"].flops_per_sample
    log = f"https://github.com/mlcommons/training_results_v1.0/blob/{COMMIT}/NVIDIA"
    assert document["count"] == 1 and document["total"] == 3
    assert document["results"] == [
        {
            "id": document["results"][0]["id"],
            "round": "v1.0",
            "round_order": 0,
            "submitter": "NVIDIA",
            "division": "closed",
            "availability": "available",
            "system": "dgxa100_n8",
            "system_pk": pk,
            "system_name": "dgxa100_n8",
            "nodes": 8,
            "accelerators": 64,
            "accelerator": "NVIDIA A100-SXM4-80GB",
            "device": "a100-sxm4-80gb",
            "benchmark": "resnet",
            "benchmark_name": "resnet",
            "network": "",
            "minutes": 30.0,
            "rule": "olympic_5",
            "rule_text": "mean of 5 runs without the fastest and the slowest",
            "rule_url": RULE_URL,
            "rcp": "not_applied",
            "runs": "5/5",
            "note": "",
            "system_url": f"/results/mlperf/systems/{pk}/",
            "url": f"/results/mlperf/systems/{pk}/resnet/",
            "source_url": f"{log}/systems/dgxa100_n8.json",
            "techniques": [],
            "figures": [
                {
                    "name": "samples_per_s_per_accelerator",
                    "value": 25000.0 / 64,
                    "unit": "samples/s",
                    "status": "derived",
                    "formula": "median logged throughput of the successful runs (samples/s) / "
                    "accelerators",
                },
                {
                    "name": "flops_per_accelerator",
                    "value": pytest.approx(25000.0 / 64 * resnet50),
                    "unit": "FLOP/s",
                    "status": "derived",
                    "formula": f"samples/s per accelerator × {resnet50:.4g} FLOPs per sample "
                    "(model FLOPs per 224×224 image, forward and backward, from the catalogue's "
                    "operator formulas (2 per multiply-add); the planner's count for resnet-50)",
                },
                {
                    "name": "fraction_of_peak",
                    "value": pytest.approx(25000.0 / 64 * resnet50 / 312e12),
                    "unit": "fraction",
                    "status": "derived",
                    "formula": "FLOP/s per accelerator / 3.12e+14 FLOP/s peak, against the "
                    "device's dense fp16/bf16 peak (submissions on devices with fp8 may run parts "
                    "in fp8, whose peak is twice as high)",
                },
                {
                    "name": "scaling_efficiency",
                    "value": 1.0,
                    "unit": "fraction",
                    "status": "derived",
                    "formula": "(t0 · n0) / (t · n) against dgxa100_n8 (n0 = 64, t0 = 30 min): "
                    "the submitter's smallest system of this type in this round",
                },
            ],
        }
    ]
    assert document["page"] == 1 and document["pages"] == 1
    assert document["csv_url"] == "/api/results/mlperf/csv/?submitter=nvidia&devices_max=64"
    assert document["charts"]["record"] == [
        {
            "round": "v1.0",
            "minutes": 16.0,
            "accelerators": 128,
            "device": "a100-sxm4-80gb",
            "label": "NVIDIA dgxa100_n16 (v1.0)",
            "url": document["results"][0]["url"].replace(str(pk), str(pk + 1)),
        }
    ]


def test_it_filters_sorts_and_pages(client, scores):
    def ids(query):
        return [r["system"] for r in client.get(f"/api/results/mlperf/?{query}").json()["results"]]

    assert ids("ordering=-accelerators") == ["tpu-v4-<b>", "dgxa100_n16", "dgxa100_n8"]
    assert ids("ordering=scaling_efficiency") == ["dgxa100_n16", "dgxa100_n8", "tpu-v4-<b>"]
    assert ids("accelerator=tpu-v4") == ["tpu-v4-<b>"]
    assert ids("division=closed&devices_min=100") == ["dgxa100_n16"]
    assert ids("round=v1.0&benchmark=resnet&division=open") == ["tpu-v4-<b>"]
    assert ids("ordering=minutes&page_size=1&page=2") == ["dgxa100_n8"]


@pytest.mark.parametrize(
    "query, parameter",
    [
        ("bogus=1", "bogus"),
        ("ordering=colour", "ordering"),
        ("division=shut", "division"),
        ("page=9", "page"),
        ("page_size=501", "page_size"),
        ("technique=telepathy", "technique"),
        ("round=v1.0&round=v2.0", "round"),
        ("round=v0.7", "round"),  # not a round of the data: the choices are read from it
        ("benchmark=chess", "benchmark"),
    ],
)
def test_it_refuses_a_bad_parameter_naming_it(client, scores, query, parameter):
    for path in ("/api/results/mlperf/", "/api/results/mlperf/csv/"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 400, (path, query)
        assert parameter in response.json()["errors"]
    assert client.get(f"/results/mlperf/?{query}").status_code == 400


def test_it_exports_the_same_rows_as_csv(client, scores):
    response = client.get("/api/results/mlperf/csv/?ordering=minutes")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["system"] for r in rows] == ["dgxa100_n16", "dgxa100_n8", "tpu-v4-<b>"]
    assert rows[0]["scaling_efficiency"] == str(64 * 30 / (128 * 16))
    assert rows[2]["samples_per_s_per_accelerator"] == str(25000.0 / 256)


def test_the_list_answers_in_a_constant_number_of_queries(
    client, scores, django_assert_max_num_queries
):
    client.get("/api/results/mlperf/")  # the rows and the charts, once per catalogue version
    client.get("/results/mlperf/")  # the form's choices, likewise
    for url in ("/api/results/mlperf/?ordering=-minutes", "/results/mlperf/?division=closed"):
        with django_assert_max_num_queries(1):  # the catalogue's version
            assert client.get(url).status_code == 200
    for _ in range(5):
        make_mlperf_score(system_id=f"more{_}", minutes=(9.0, 10.0, 11.0))
    client.get("/api/results/mlperf/")
    client.get("/results/mlperf/")  # the form's choices, once per catalogue version
    with django_assert_max_num_queries(1):
        assert client.get("/results/mlperf/?ordering=minutes").status_code == 200


def test_a_system_and_its_benchmark_list_every_run_with_its_log(
    client, scores, django_assert_max_num_queries
):
    pk = MlperfSystem.objects.get(system_id="dgxa100_n8").pk
    client.get("/api/results/mlperf/")
    with django_assert_max_num_queries(3):
        page = client.get(f"/results/mlperf/systems/{pk}/resnet/")
    assert page.status_code == 200
    html = page.content.decode()
    log = f"https://github.com/mlcommons/training_results_v1.0/blob/{COMMIT}/NVIDIA/results"
    for index in range(5):
        assert f'href="{log}/dgxa100_n8/resnet/result_{index}.txt"' in html
    document = client.get(f"/api/results/mlperf/systems/{pk}/resnet/").json()
    assert [run["log_url"] for run in document["runs"]] == [
        f"{log}/dgxa100_n8/resnet/result_{i}.txt" for i in range(5)
    ]
    assert document["score"]["minutes"] == 30.0
    with django_assert_max_num_queries(3):
        system = client.get(f"/results/mlperf/systems/{pk}/")
    assert system.status_code == 200 and f'href="/results/mlperf/systems/{pk}/resnet/"' in (
        system.content.decode()
    )
    assert client.get(f"/api/results/mlperf/systems/{pk}/").json()["system"]["nodes"] == 8
    assert client.get(f"/results/mlperf/systems/{pk}/bert/").status_code == 404
    assert client.get("/results/mlperf/systems/99999999999999/").status_code == 404
    assert client.get("/api/results/mlperf/systems/99999/").status_code == 404
    assert client.get(f"/api/results/mlperf/systems/{pk}/?x=1").json()["errors"] == {
        "x": ["unknown parameter 'x' (allowed: none)"]
    }


def test_the_charts_escape_database_labels(client, scores):
    html = client.get("/results/mlperf/").content.decode()
    assert 'data-figure="mlperf-record"' in html and 'data-figure="mlperf-scaling"' in html
    assert 'data-figure="mlperf-throughput"' in html
    assert "Google<i>" not in html and "<b>" not in html.split("<body")[1].replace("<body", "")
    assert "Google&amp;lt;i&amp;gt;" in html or "Google\\u0026lt;i\\u0026gt;" in html


def test_a_hub_shows_the_mlperf_results_of_its_techniques_in_a_line(client, survey):
    score = make_mlperf_score()
    score.benchmark.techniques.add(Technique.objects.get(slug="allreduce"))
    score.benchmark.name = "ResNet-50 <v1.5>"
    score.benchmark.save()
    category = Technique.objects.get(slug="allreduce").category.code
    document = client.get(f"/api/categories/{category}/").json()
    assert document["mlperf"] == [
        {
            "benchmark": "resnet",
            "name": "ResNet-50 <v1.5>",
            "scores": 1,
            "best_minutes": 30.0,
            "html_url": "http://testserver/results/mlperf/?benchmark=resnet",
        }
    ]
    html = client.get(f"/categories/{category}/").content.decode()
    link = '<a href="/results/mlperf/?benchmark=resnet">ResNet-50 &lt;v1.5&gt;</a>'
    assert f"{link} (1 score, best 30 min)" in html


def test_the_papers_results_link_mlperf_with_the_filters_that_apply(client, survey):
    html = client.get("/results/?technique=allreduce&family=data&devices_min=8").content.decode()
    assert 'href="/results/mlperf/?technique=allreduce&amp;devices_min=8"' in html


def test_it_derives_the_figures_of_every_round_from_the_logs(
    client, mlperf, django_assert_max_num_queries
):
    """At full size: GPT-3 175B on 512 H100s in v4.1, its samples/s from its runs' tokens at
    the target and their times, its FLOP/s from the planner's count; a list filtered and
    sorted in one query once the rows are kept; its runs' logs at the round's commit."""
    client.get("/api/results/mlperf/")
    client.get("/results/mlperf/")  # the form's choices, once per catalogue version
    with django_assert_max_num_queries(1):
        response = client.get(
            "/api/results/mlperf/?benchmark=gpt3&accelerator=h100-sxm&round=v4.1"
            "&ordering=-accelerators&page_size=1"
        )
    (row,) = response.json()["results"]
    system = MlperfSystem.objects.get(pk=row["system_pk"])
    runs = system.runs.filter(benchmark__slug="gpt3", status="success")
    rates = sorted(r.at_target / 2048 / (r.minutes * 60) for r in runs)
    middle = len(rates) // 2
    rate = rates[middle] if len(rates) % 2 else (rates[middle - 1] + rates[middle]) / 2
    figures = {f["name"]: f for f in row["figures"]}
    each = rate / row["accelerators"]
    assert figures["samples_per_s_per_accelerator"]["value"] == pytest.approx(each)
    assert "2,048 tokens per sequence" in figures["samples_per_s_per_accelerator"]["formula"]
    flops = mlperf_rows.flop_counts()["gpt3"].flops_per_sample
    assert figures["flops_per_accelerator"]["value"] == pytest.approx(each * flops)
    html = client.get(f"/results/mlperf/systems/{system.pk}/gpt3/").content.decode()
    commit = system.round.commit
    assert len(commit) == 40
    for run in system.runs.filter(benchmark__slug="gpt3"):
        url = f"https://github.com/{system.round.repository}/blob/{commit}/{run.path}"
        assert f'href="{url}"' in html
