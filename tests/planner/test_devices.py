"""One device table for the machine presets, a machine built of a catalogue device and the
results' predictions, fed from the device catalogue; every figure with a source (the page it was
read on, or the status saying it was recalled)."""

import pytest

from catalogue.devices import devices as catalogue_rows
from explorer.planner.machine import PRESETS, PlannerInputError, parse
from explorer.planner.presets import preset_sources
from explorer.results.predict_transformer import A100_MACHINE as TRANSFORMER_MACHINE
from explorer.workloads.devices import (
    LINKS,
    RECALLED,
    catalogue_devices,
    device_named,
    devices,
    from_catalogue,
    matching,
)


def test_every_catalogue_device_is_a_planner_device_with_its_figures_and_pages():
    rows = catalogue_rows()
    assert set(catalogue_devices()) == set(rows)
    h100 = from_catalogue(rows["h100-sxm"])
    assert h100.flops("bf16-mixed") == rows["h100-sxm"].peak_flops["bf16"] == 989e12
    assert h100.flops("fp8") == 1979e12
    assert h100.memory_gb == 80.0 and h100.intra_bandwidth_gbs == 450.0
    link = h100.source("intra_bandwidth_gbs")
    assert "'900 GB/s'" in link and "divided by 2" in link and "https://" in link
    assert h100.source("flops.bf16-mixed").endswith(rows["h100-sxm"].sources["peak_flops.bf16"])
    assert devices()["h100-nvl"].flops("bf16-mixed") is None  # no page states it


def test_the_presets_take_peak_memory_and_link_with_their_sources_from_the_catalogue():
    for slug, device, precision in (
        ("goyal-2017", "p100-sxm2", "fp32"),
        ("a100-cluster", "a100-sxm4-80gb", "bf16-mixed"),
    ):
        preset, entry = PRESETS[slug], devices()[device]
        assert preset.device == device and entry.in_catalogue
        assert preset.values["flops"] == entry.flops(precision)
        assert preset.values["memory_gb"] == entry.memory_gb
        assert preset.values["intra_bandwidth_gbs"] == entry.intra_bandwidth_gbs
        sources = preset_sources(preset)
        assert sources["flops"] == entry.source(f"flops.{precision}") and "http" in sources["flops"]
        assert sources["memory_gb"] == entry.source("memory_gb")
        assert sources["intra_bandwidth_gbs"] == entry.source("intra_bandwidth_gbs")


def test_a_result_finds_its_device_and_link_by_name():
    assert device_named("NVIDIA Tesla P100").slug == "p100-sxm2"
    device = PRESETS[TRANSFORMER_MACHINE].device
    assert device_named("NVIDIA A100 80GB (560 DGX A100)").slug == device
    assert device_named("Google TPU v3").slug == "tpu-v3"
    assert device_named("NVIDIA GTX 580 3GB").source("flops.fp32") == RECALLED
    assert device_named("an abacus") is None
    assert matching(LINKS, "ABCI, InfiniBand EDR (recalled)").slug == "infiniband-edr"
    assert PRESETS[TRANSFORMER_MACHINE].values["flops"] == devices()[device].flops("bf16-mixed")


def test_a_machine_of_any_catalogue_device_takes_its_figures_over_the_presets():
    inputs = parse(
        {"machine": "a100-cluster", "device": "h100-sxm", "precision": "bf16-mixed"}, {"resnet-50"}
    )
    assert (inputs.device, inputs.flops, inputs.memory_gb) == ("h100-sxm", 989e12, 80.0)
    assert inputs.intra_bandwidth_gbs == 450.0 and inputs.bandwidth_gbs == 25.0  # the preset's
    explicit = parse({"device": "h100-sxm", "flops": "5e14"}, {"resnet-50"})
    assert explicit.flops == 5e14 and explicit.memory_gb == 80.0
    assert parse({}, {"resnet-50"}).device == ""  # the example machine: no device


@pytest.mark.parametrize(
    ("query", "message"),
    (
        (
            {"device": "h100-nvl", "precision": "bf16-mixed"},
            "device h100-nvl: the device catalogue states no flops (its peak FLOP/s at "
            "bf16-mixed); give it explicitly",
        ),
        (
            {"device": "m40", "devices_per_node": "4"},
            "device m40: the device catalogue states no memory_gb (its memory) and no "
            "intra_bandwidth_gbs (its link to the other devices of a node); give it explicitly",
        ),
    ),
)
def test_a_figure_the_catalogue_does_not_state_is_refused_unless_given(query, message):
    with pytest.raises(PlannerInputError) as error:
        parse(query, {"resnet-50"})
    assert str(error.value) == message
    given = {"flops": "1e14", "memory_gb": "12", "intra_bandwidth_gbs": "10"}
    assert parse({**query, **given}, {"resnet-50"}).flops == 1e14


def test_only_the_catalogues_devices_build_a_machine():
    with pytest.raises(PlannerInputError, match="device must be one of the device catalogue's"):
        parse({"device": "gtx-580"}, {"resnet-50"})


def test_the_api_builds_a_machine_of_a_catalogue_device_and_cites_its_pages(client, survey):
    response = client.get("/api/planner/?machine=a100-cluster&device=h100-sxm&network=gpt3-175b")
    assert response.status_code == 200
    machine = response.json()["machine"]
    row = catalogue_rows()["h100-sxm"]
    assert (machine["device"], machine["device_name"]) == ("h100-sxm", row.name)
    assert (machine["flops"], machine["memory_bytes"]) == (989e12, 80e9)
    assert machine["intra_G"] == pytest.approx(1 / 450e9)
    assert machine["G"] == pytest.approx(1 / 25e9)  # the preset's link between nodes
    sources = machine["sources"]
    assert sources["flops"].endswith(row.sources["peak_flops.bf16"])
    assert sources["memory_gb"].endswith(row.sources["memory_bytes"])
    assert sources["intra_bandwidth_gbs"].endswith(row.sources["link_bandwidth"])
    mine = client.get("/api/planner/?device=h100-sxm&memory_gb=40&precision=bf16-mixed").json()
    assert mine["machine"]["sources"]["memory_gb"] == "your value"


def test_the_api_refuses_a_device_figure_the_catalogue_lacks_naming_it(client, survey):
    response = client.get("/api/planner/?device=h100-nvl&precision=bf16-mixed")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["errors"] == {
        "device": [
            "device h100-nvl: the device catalogue states no flops (its peak FLOP/s at "
            "bf16-mixed); give it explicitly"
        ]
    }
    assert client.get("/api/planner/?device=h100-nvl&flops=4e14").status_code == 200
    unknown = client.get("/api/planner/?device=tpu-v9").json()["errors"]
    assert list(unknown) == ["device"]


def test_the_page_offers_the_catalogues_devices_and_names_the_one_chosen(client, survey):
    page = client.get("/planner/?machine=a100-cluster&device=h100-sxm&network=gpt3-175b")
    html = page.content.decode()
    name = catalogue_rows()["h100-sxm"].name
    assert f'<option value="h100-sxm" selected>{name}</option>' in html
    assert f"; device: {name}." in html
    assert html.count('<option value="tpu-v5p"') == 1


def test_fp8_runs_at_the_devices_fp8_peak_with_transformer_engines_bytes_per_value():
    inputs = parse({"device": "h100-sxm", "precision": "fp8", "optimizer": "adam"}, {"resnet-50"})
    assert inputs.flops == 1979e12  # the catalogue's dense FP8 peak
    sizes = inputs.sizes.as_dict()
    assert sizes == {
        "weights": 2,
        "gradients": 2,
        "optimizer_state": 12,
        "messages": 2,
        "activations": 2,
    }
    with pytest.raises(
        PlannerInputError, match=r"a100-sxm4-80gb: .* no flops \(its peak FLOP/s at fp8"
    ):
        parse({"machine": "a100-cluster", "precision": "fp8"}, {"resnet-50"})


def test_the_api_cites_transformer_engine_for_fp8(client, survey):
    query = "network=llama2-70b&machine=a100-cluster&device=h100-sxm&precision=fp8&P=512"
    document = client.get(f"/api/planner/?{query}").json()
    machine = document["machine"]
    assert machine["flops"] == 1979e12 and document["inputs"]["precision"] == "fp8"
    assert "NVIDIA/TransformerEngine/blob/1498424" in machine["sources"]["precision"]
    assert machine["sources"]["flops"].endswith(
        catalogue_rows()["h100-sxm"].sources["peak_flops.fp8"]
    )
    bf16 = client.get(f"/api/planner/?{query.replace('fp8', 'bf16-mixed')}").json()
    assert "precision" not in bf16["machine"]["sources"]
    assert document["strategies"][0]["step_time"] < bf16["strategies"][0]["step_time"]
