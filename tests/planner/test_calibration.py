"""The planner against MLPerf Training (explorer/planner/accuracy/calibration): a machine from a
system, the measured throughput, the efficiency fit, and the committed
fixtures/planner_accuracy.json re-derived for a sample of its scores (a planner change that moves
them makes it stale)."""

import math

import pytest

from explorer.planner.accuracy.calibration import (
    NOT_BUILT,
    accuracy,
    comparable_runs,
    default_efficiency,
    predict,
)
from explorer.planner.accuracy.calibration import fit as fitting
from explorer.planner.accuracy.calibration.benchmarks import BENCHMARKS
from explorer.planner.accuracy.calibration.document import FIT_ROUNDS, peak_entries, read_fixture
from explorer.planner.accuracy.calibration.families import model_family
from explorer.planner.accuracy.calibration.machine import (
    assumed_inter_node,
    machine_from_system,
    stated_inter_node,
)
from explorer.planner.accuracy.calibration.predict import (
    TRAINING_TIME,
    WHOLE_TIME,
    measured_throughput,
    needed_efficiency,
    with_efficiency,
)
from explorer.workloads.devices import devices
from explorer.workloads.formulas import fixture_formulas

DGX_H100 = {
    "round": "v3.1",
    "submitter": "NVIDIA",
    "system_id": "eos_n64",
    "accelerator": "NVIDIA H100-SXM5-80GB",
    "device_slug": "h100-sxm",
    "nodes": 64,
    "accelerators_per_node": 8,
    "accelerators": 512,
    "host_interconnect": (
        "Storage: 2x ConnectX-7 IB NDR 400Gb/s, Compute: 8x ConnectX-7 IB NDR 400Gb/s, "
        "Management: 100Gb/s Ethernet NIC"
    ),
}


def test_it_reads_the_compute_adapters_of_a_host_interconnect_and_skips_the_others():
    assert stated_inter_node(DGX_H100["host_interconnect"]) == 3200
    assert stated_inter_node("1x ConnectX-5 IB EDR 100Gb/Sec") == 100
    assert stated_inter_node("4x ConnectX-7 IB NDR") == 1600  # the generation's rate
    assert stated_inter_node("InfiniBand 100 Gb/sec (4X EDR)") == 100  # 4X is lanes
    assert stated_inter_node("Management: 1x Ethernet 10GB/Sec") is None
    assert stated_inter_node("TODO") is None


def test_it_builds_a_machine_from_a_system_with_the_catalogues_device_and_its_links():
    machine = machine_from_system(DGX_H100)
    h100 = devices()["h100-sxm"]
    assert machine.values["P"] == 512 and machine.values["devices_per_node"] == 8
    assert machine.values["flops"] == h100.flops("bf16-mixed")
    assert machine.values["memory_gb"] == h100.memory_gb
    assert machine.values["intra_bandwidth_gbs"] == h100.intra_bandwidth_gbs
    assert machine.values["bandwidth_gbs"] == 3200 / 8 / 8  # 50 GB/s per GPU
    assert "stated: 3200 Gb/s" in machine.inter_node


def test_it_labels_an_assumed_link_between_nodes_and_says_why_it_cannot_build_one():
    machine = machine_from_system(DGX_H100 | {"host_interconnect": ""})
    assert machine.values["bandwidth_gbs"] == assumed_inter_node("h100-sxm")[0] == 50.0
    assert any(a.startswith("link between nodes assumed:") for a in machine.assumed)
    assert "does not know" in machine_from_system(DGX_H100 | {"device_slug": ""})
    one_node = machine_from_system(DGX_H100 | {"nodes": 1, "accelerators": 8})
    assert not any(a.startswith("link between nodes") for a in one_node.assumed)


def _run(**values):
    return {"status": "success", "at_target": 40.0, "at_target_unit": "epochs"} | values


def test_measured_throughput_is_the_samples_to_target_over_the_scores_time():
    resnet = BENCHMARKS["resnet"]
    runs = [_run(global_batch=3200), _run(at_target=42.0, global_batch=3200), _run(at_target=44.0)]
    score = {"minutes": 30.0, "olympic_minutes": 25.0}
    throughput, batch, time = measured_throughput(score, runs, resnet)
    assert batch == 3200 and time == WHOLE_TIME
    assert throughput == pytest.approx(42.0 * 1_281_167 / (25.0 * 60))
    assert measured_throughput({"minutes": None}, runs, resnet) == "no valid score"


LORA_SYSTEM = {"round": "v4.0", "system_id": "eos_n8_ngc24.04_nemo"}


def _lora_run(index, samples, start, stop):
    return {
        "status": "success",
        "index": index,
        "at_target": samples,
        "at_target_unit": "samples",
        "global_batch": 8,
        "start": start,
        "stop": stop,
    }


def test_a_llm_score_is_measured_over_its_training_time_its_logs_evaluations_taken_out(
    monkeypatch,
):
    lora = BENCHMARKS["llama2_70b_lora"]
    evaluations = {
        ("v4.0", "eos_n8_ngc24.04_nemo", "llama2_70b_lora", 0): 60.0,
        ("v4.0", "eos_n8_ngc24.04_nemo", "llama2_70b_lora", 1): 100.0,
    }
    monkeypatch.setattr(predict, "recorded_evaluations", lambda: evaluations)
    runs = [_lora_run(0, 3072.0, 1000.0, 1360.0), _lora_run(1, 3456.0, 2000.0, 2400.0)]
    score = {"minutes": 6.5, "olympic_minutes": None}
    throughput, batch, time = measured_throughput(score, runs, lora, LORA_SYSTEM)
    assert time == TRAINING_TIME and batch == 8
    # the median of 3072 / (360 - 60) and 3456 / (400 - 100)
    assert throughput == pytest.approx((3072 / 300 + 3456 / 300) / 2)
    # One run without its evaluations recorded: the whole time, for every run alike.
    del evaluations[("v4.0", "eos_n8_ngc24.04_nemo", "llama2_70b_lora", 1)]
    throughput, _, time = measured_throughput(score, runs, lora, LORA_SYSTEM)
    assert time == WHOLE_TIME and throughput == pytest.approx(3264 / (6.5 * 60))
    # BERT's logs mostly mark no evaluation: its scores keep their whole time.
    assert not BENCHMARKS["bert"].training_time and not BENCHMARKS["resnet"].training_time


def test_it_does_not_take_a_progress_logged_in_another_unit_for_samples():
    bert = BENCHMARKS["bert"]
    runs = [{"status": "success", "at_target": 1.0, "at_target_unit": "samples", "global_batch": 8}]
    assert "no successful run" in measured_throughput({"minutes": 10.0}, runs, bert)


def _entry(device, model, needed, batch=64, accelerators=8, **more):
    return {
        "device": device,
        "model_family": model,
        "needed": needed,
        "peak_fraction": needed,
        "global_batch": batch,
        "accelerators": accelerators,
    } | more


def test_the_fit_takes_the_median_per_device_and_family_and_falls_back():
    entries = [_entry("a100", "cnn", v) for v in (0.2, 0.3, 0.4)]
    entries += [_entry("v100", "cnn", 0.1), _entry("a100", "decoder", 0.5)]
    table = fitting.fit(entries, "fit split")
    assert fitting.lookup(table, "a100", "cnn")["value"] == 0.3
    assert fitting.lookup(table, "a100", "cnn")["basis"] == "device × family"
    assert fitting.lookup(table, "v100", "cnn")["basis"] == "family only"  # one run: too few
    assert fitting.lookup(table, "v100", "cnn")["value"] == 0.25
    assert fitting.lookup(table, "tpu", "encoder")["basis"] == "all runs"
    # LoRA fine-tunes a frozen decoder: without LoRA rows of its own it takes the decoder's
    lora = fitting.lookup(table, "tpu", "lora")
    assert lora["basis"] == "decoder only (lora's base network)"
    assert lora["value"] == fitting.lookup(table, "tpu", "decoder")["value"]


def test_the_fit_finds_the_scale_term_within_a_device_and_family():
    # needed = 0.4 × (b / 64)^0.5 exactly, on two devices at different levels
    entries = [
        _entry(device, "cnn", level * (b / 64) ** 0.5, batch=b * 8)
        for device, level in (("a100", 0.4), ("h100", 0.3))
        for b in (16, 32, 64, 128, 256, 512)
    ]
    table = fitting.fit(entries, "all")
    row = fitting.lookup(table, "a100", "cnn")
    assert row["beta"] == pytest.approx(0.5)
    assert fitting.efficiency_at(row, 16) == pytest.approx(0.4 * (16 / 64) ** 0.5)


def test_errors_and_systematic_offsets_are_of_the_ratio():
    held = [
        _entry("l40s", "cnn", 0.2, benchmark="resnet", family="data", ratio=r)
        for r in (2.0, 1.9, 2.1, 1.8, 2.2)
    ]
    rows = {(e["benchmark"], e["family"]): e for e in fitting.errors(held)}
    assert rows[("resnet", "data")]["median"] == pytest.approx(1.0)
    assert rows[("resnet", "data")]["bias"] == pytest.approx(2.0)
    assert any(s["where"] == "device: l40s" for s in fitting.systematic(held))


def test_families_of_the_planners_networks():
    assert model_family("resnet-50") == "cnn"
    assert model_family("bert-large") == "encoder"
    assert model_family("llama3.1-405b") == "decoder"


@pytest.fixture(scope="module")
def rederived():
    """Every score at peak, re-derived from MLPerf's fixture with the planner as it is now."""
    entries, _ = peak_entries(read_fixture(), fixture_formulas(), needed=False)
    return entries


def _key(entry):
    return (entry["round"], entry["submitter"], entry["system_id"], entry["benchmark"])


def test_the_committed_accuracy_fixture_is_the_planners_current_answer(rederived):
    document = accuracy()
    assert document["status"] == "built", "run fixtures/build/planner_accuracy.py"
    committed = {_key(p): p for p in document["predictions"]}
    assert set(committed) == {_key(e) for e in rederived}
    formulas = fixture_formulas()
    sample = rederived[:: max(1, len(rederived) // 40)]
    benchmarks = {e["benchmark"] for e in sample}
    assert {"resnet", "bert", "gpt3", "llama31_8b"} <= benchmarks
    for entry in sample:
        stored = committed[_key(entry)]
        for name in ("measured_throughput", "predicted_at_peak", "peak_fraction"):
            if stored[name] is None:  # no fraction of the peak stated: BERT's, or above 1
                assert name == "peak_fraction" and stored["peak_note"], _key(entry)
                continue
            assert stored[name] == pytest.approx(entry[name], rel=1e-5), (_key(entry), name)
        assert stored["layout"] == entry["layout"]
        efficiency = stored["efficiency"] or stored["of_roofline"] * stored["roofline"]
        predicted = with_efficiency(entry, efficiency, formulas)
        assert stored["ratio"] == pytest.approx(predicted["ratio"], rel=1e-5), _key(entry)
        # The needed efficiency is stored in units of the run's roofline.
        needed = needed_efficiency(entry, formulas) / entry["roofline"]
        assert stored["needed"] == pytest.approx(needed, rel=1e-5)
        assert stored["roofline"] == pytest.approx(entry["roofline"], rel=1e-5)


def test_it_holds_out_the_later_rounds_and_fits_the_default_on_every_round():
    document = accuracy()
    assert document["split"]["fitted_on"] == list(FIT_ROUNDS)
    assert all(p["held_out"] == (p["round"] not in FIT_ROUNDS) for p in document["predictions"])
    assert {row["fitted_on"] for row in document["efficiency"]} == {"fit split", "all"}
    errors = {(e["benchmark"], e["family"]): e for e in document["errors"]}
    held = [p for p in document["predictions"] if p["held_out"]]
    assert errors[("*", "*")]["n"] == len(held)
    assert errors[("*", "*")]["median"] == pytest.approx(
        sorted(abs(p["ratio"] - 1) for p in held)[len(held) // 2], abs=0.05
    )
    covered = {c["benchmark"]: c for c in document["coverage"]}
    assert set(covered) == set(BENCHMARKS)
    lora = [n for n in document["not_predicted"] if n["benchmark"] == "llama2_70b_lora"]
    if BENCHMARKS["llama2_70b_lora"].not_expressible:
        assert lora[0]["reason"].startswith("not expressible:")


def test_default_efficiency_states_its_basis_and_comparable_runs_their_range():
    found = default_efficiency("a100-sxm4-80gb", "cnn")
    assert 0.01 <= found["value"] <= 1 and found["runs"] >= 3
    assert "a100-sxm4-80gb × cnn" in found["basis"] and "MLPerf" in found["basis"]
    assert default_efficiency("no-such-device", "cnn")["fit"] == "family only"
    runs = comparable_runs("a100-sxm4-80gb", "cnn", 64)
    fractions = sorted(r["mfu"] for r in runs["runs"])
    assert runs["n"] == len(fractions) > 0 and not runs["widened"]
    assert fractions[0] <= runs["low"] <= runs["high"] <= fractions[-1]
    assert all(16 <= r["accelerators"] <= 256 for r in runs["runs"])
    assert comparable_runs("no-such-device", "cnn", 8)["widened"]


def test_not_built_has_every_key_empty():
    assert NOT_BUILT["status"] == "not built"
    assert all(NOT_BUILT[k] == [] for k in ("efficiency", "errors", "predictions", "coverage"))
    assert math.isfinite(len(accuracy()["predictions"]))


def test_a_device_without_fitted_runs_takes_the_family_value_at_its_machine_balance():
    # e = 0.1 × (B / 0.001)^0.5 exactly on four devices of known balance (bytes per FLOP)
    balances = {"d1": 0.001, "d2": 0.002, "d3": 0.004, "d4": 0.008}
    entries = [
        _entry(device, "cnn", 0.1 * (balance / 0.001) ** 0.5, balance=balance)
        for device, balance in balances.items()
        for _ in range(3)
    ]
    table = fitting.fit(entries, "fit split")
    family = next(r for r in table if r["device"] == fitting.ANY and r["family"] == "cnn")
    assert family["alpha"] == pytest.approx(0.5, rel=1e-4)
    assert family["balance_range"] == [0.001, 0.008]
    # a fitted device keeps its own row; a new one is brought to its balance from the family's
    assert fitting.lookup(table, "d3", "cnn", 0.5)["basis"] == "device × family"
    new = fitting.lookup(table, "new", "cnn", 0.002)
    assert new["basis"] == "family only × device balance"
    assert new["value"] == pytest.approx(family["value"] * (0.002 / family["balance"]) ** 0.5)
    # beyond the fitted devices' balances the term does not extrapolate
    far = fitting.lookup(table, "far", "cnn", 1.0)
    assert far["value"] == pytest.approx(family["value"] * (0.008 / family["balance"]) ** 0.5)
    # unknown balance, or a family with fewer than four fitted devices: the family's value
    assert fitting.lookup(table, "new", "cnn")["value"] == family["value"]
    few = fitting.fit([e | {"model_family": "encoder"} for e in entries[:9]], "fit split")
    assert fitting.lookup(few, "new", "encoder", 0.002)["basis"] == "family only"


def test_a_device_without_fitted_runs_takes_a_fitted_siblings_row_at_its_balance():
    # h200 (the same compute as h100, more memory bandwidth) has no runs of its own
    balances = {"h100": 0.003, "a": 0.005, "b": 0.006, "c": 0.007}
    entries = [
        _entry(device, "encoder", 0.2 * (balance / 0.001) ** 0.5, balance=balance)
        for device, balance in balances.items()
        for _ in range(3)
    ]
    table = fitting.fit(entries, "fit split")
    h100 = fitting.lookup(table, "h100", "encoder", 0.003)
    h200 = fitting.lookup(table, "h200", "encoder", 0.0045, ["h100"])
    assert h200["basis"] == "sibling h100 × family × device balance"
    assert h200["value"] == pytest.approx(h100["value"] * (0.0045 / 0.003) ** 0.5, rel=1e-4)
    # a sibling without fitted runs is passed over: the family's row
    assert fitting.lookup(table, "b300", "encoder", 0.0045, ["b200"])["basis"] == (
        "family only × device balance"
    )


def test_no_prediction_states_a_fraction_of_the_peak_above_one():
    predictions = accuracy()["predictions"]
    for name in ("efficiency", "peak_fraction", "mfu"):
        assert all(p[name] is None or 0 < p[name] <= 1 for p in predictions), name
    bert = [p for p in predictions if p["benchmark"] == "bert"]
    assert bert and all(p["efficiency"] is None and "512 each" in p["peak_note"] for p in bert)
    assert all(p["ratio"] for p in bert)  # still predicted, in the planner's count
