"""/api/devices/ and /devices/: whole documents, sorting with unknown values last, refusals named
by parameter, and no database query: the tests have no database access (no django_db mark), so
a query would fail them (the catalogue is a fixture file read once per process)."""

import re

import pytest

ML_ENGINEERING = (
    "https://github.com/stas00/ml-engineering/blob/744d01e18b79512572f64a6bbd8b5f4a725203a7/"
)
ACCELERATORS = ML_ENGINEERING + "compute/accelerator/README.md"
GAUDI2_MLPERF = (
    "https://github.com/mlcommons/training_results_v4.0/blob/6fe954378efe4a1a1bd665550b18ff8f26018def/"
    "Intel-HabanaLabs/systems/HLS-Gaudi2-N128-PT.json"
)
HABANA_NETWORK = (
    "https://docs.habana.ai/en/latest/Management_and_Monitoring/Network_Configuration/index.html"
)


def value(number, unit, read, url, kind="secondary", divisor=1.0, why="", shown=""):
    return {
        "value": number,
        "unit": unit,
        "shown": shown,
        "read": read,
        "url": url,
        "source_kind": kind,
        "divisor": divisor,
        "why": why,
    }


def flops(number, read, shown):
    return value(number, "FLOP/s", read, ACCELERATORS, shown=shown)


COLUMNS = [
    {"name": "memory", "label": "memory", "unit": "B"},
    {"name": "memory_bandwidth", "label": "memory bandwidth", "unit": "B/s"},
    {"name": "link_bandwidth", "label": "link (one way)", "unit": "B/s"},
    *({"name": p, "label": f"{p} peak", "unit": "FLOP/s"} for p in ("fp64", "fp32", "tf32")),
    *({"name": p, "label": f"{p} peak", "unit": "FLOP/s"} for p in ("fp16", "bf16", "fp8")),
    {"name": "int8", "label": "int8 peak", "unit": "OP/s"},
]


def test_it_answers_the_intel_devices_as_a_whole_document(client):
    response = client.get("/api/devices/?vendor=Intel&ordering=-bf16")
    assert response.status_code == 200
    document = response.json()
    assert document == {
        "count": 2,
        "total": document["total"],
        "conventions": document["conventions"],
        "source_kinds": {
            "vendor": "vendor's page (datasheet, documentation)",
            "mlperf": "MLPerf system description (the submitter's)",
            "secondary": "secondary page",
        },
        "value_counts": {"vendor": 1, "mlperf": 1, "secondary": 11, "unknown": 7},
        "columns": COLUMNS,
        "devices": [
            {
                "slug": "gaudi3",
                "name": "Intel Gaudi 3 (HL-325L OAM)",
                "vendor": "Intel",
                "kind": "accelerator",
                "aliases": ["Gaudi3", "Gaudi 3", "Intel Gaudi 3", "HL-325L"],
                "values": {
                    "memory": value(128 * 10**9, "B", "128 GB", ACCELERATORS, shown="128 GB"),
                    "memory_bandwidth": value(
                        3.7e12, "B/s", "3.70 TBps", ACCELERATORS, shown="3.7 TB/s"
                    ),
                    "link_bandwidth": value(
                        525e9, "B/s", "525 GB/s", HABANA_NETWORK, "vendor", shown="525 GB/s"
                    ),
                    "fp64": None,
                    "fp32": flops(229e12, "229.0 TFLOPS", "229 TFLOP/s"),
                    "tf32": flops(459e12, "459.0 TFLOPS", "459 TFLOP/s"),
                    "fp16": flops(459e12, "459 TFLOPS", "459 TFLOP/s"),
                    "bf16": flops(1677e12, "1677 TFLOPS", "1.68 PFLOP/s"),
                    "fp8": flops(1677e12, "1677 TFLOPS", "1.68 PFLOP/s"),
                    "int8": None,
                },
                "notes": document["devices"][0]["notes"],
            },
            {
                "slug": "gaudi2",
                "name": "Intel Gaudi 2 (HL-225H)",
                "vendor": "Intel",
                "kind": "accelerator",
                "aliases": [
                    "Gaudi2",
                    "Gaudi 2",
                    "Habana Gaudi2",
                    "Intel Gaudi2",
                    "Intel(R) Gaudi(R) 2 AI Accelerator",
                    "HL-225H",
                ],
                "values": {
                    "memory": value(
                        96 * 10**9, "B", "96 GB", GAUDI2_MLPERF, "mlperf", shown="96 GB"
                    ),
                    "memory_bandwidth": value(
                        2.46e12, "B/s", "2.46 TBps", ACCELERATORS, shown="2.46 TB/s"
                    ),
                    "link_bandwidth": value(
                        300e9,
                        "B/s",
                        "300.0 GBps",
                        ML_ENGINEERING + "network/README.md",
                        shown="300 GB/s",
                    ),
                    "fp64": None,
                    "fp32": None,
                    "tf32": None,
                    "fp16": None,
                    "bf16": flops(432e12, "432 TFLOPS", "432 TFLOP/s"),
                    "fp8": flops(865e12, "865 TFLOPS", "865 TFLOP/s"),
                    "int8": None,
                },
                "notes": document["devices"][1]["notes"],
            },
        ],
        "page_url": "/devices/?vendor=Intel&ordering=-bf16",
        "api_url": "/api/devices/?vendor=Intel&ordering=-bf16",
    }
    assert document["total"] >= 25
    assert "dense" in document["conventions"] and "one direction" in document["conventions"]
    assert all(document["devices"][i]["notes"] for i in (0, 1))


def test_a_halved_figure_carries_its_divisor_and_reason(client):
    (h100,) = [d for d in client.get("/api/devices/").json()["devices"] if d["slug"] == "h100-sxm"]
    link = h100["values"]["link_bandwidth"]
    assert (link["value"], link["read"], link["divisor"], link["source_kind"]) == (
        450e9,
        "900 GB/s",
        2.0,
        "mlperf",
    )
    assert "both directions" in link["why"]
    assert h100["values"]["bf16"]["value"] == 989e12


@pytest.mark.parametrize("ordering", ["-fp64", "fp64"])
def test_it_sorts_by_a_column_with_the_unknown_values_last(client, ordering):
    rows = client.get(f"/api/devices/?ordering={ordering}").json()["devices"]
    known = [row["values"]["fp64"]["value"] for row in rows if row["values"]["fp64"]]
    assert known == sorted(known, reverse=ordering.startswith("-")) and len(known) >= 5
    firsts = [row["values"]["fp64"] is None for row in rows]
    assert firsts == sorted(firsts)  # every unknown after every known


def test_it_filters_by_kind(client):
    rows = client.get("/api/devices/?kind=tpu&ordering=name").json()["devices"]
    assert [row["slug"] for row in rows] == ["tpu-v3", "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e"]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("zz=1", "zz"),
        ("ordering=speed", "ordering"),
        ("kind=fpga", "kind"),
        ("vendor=Acme", "vendor"),
        ("kind=tpu&kind=gpu", "kind"),
    ],
)
def test_it_refuses_a_bad_unknown_or_repeated_parameter_by_name(client, query, name):
    response = client.get(f"/api/devices/?{query}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [name]
    page = client.get(f"/devices/?{query}")
    assert page.status_code == 400 and name in page.content.decode()


def test_the_page_shows_each_value_with_its_source_and_sorts_by_column(client):
    response = client.get("/devices/?ordering=-bf16")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.index('id="device-gb200"') < html.index('id="device-h100-sxm"')
    assert 'aria-sort="descending"><a href="?ordering=bf16">bf16 peak</a>' in html
    assert '<a href="?ordering=-memory">memory</a>' in html
    assert 'class="badge source-mlperf"' in html and 'class="badge source-vendor"' in html
    assert (
        "989 TFLOP/s" in html
        and "95 GiB" in html
        and '<span class="unknown">unknown</span>' in html
    )
    assert "/api/devices/?ordering=-bf16" in html
    assert re.search(r"Their values: \d+\s+read on vendors' pages, \d+ on MLPerf", html)


def test_a_bad_ordering_lists_the_allowed_values(client):
    errors = client.get("/api/devices/?ordering=colour").json()["errors"]
    assert list(errors) == ["ordering"]
    assert errors["ordering"][0].startswith("must be one of name, vendor, memory")
    assert errors["ordering"][0].endswith("(got 'colour')")
