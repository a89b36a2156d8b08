"""System descriptions as submitters wrote them, brought to the catalogue's fields."""

import json

from catalogue.mlperf.systems import count, describe

V06_LOGGED = b"""\
org: {"value": "NVIDIA", "metadata": {"file": "mlperf_log_utils.py", "lineno": 231}}
division: {"value": "closed", "metadata": {"file": "mlperf_log_utils.py", "lineno": 235}}
status: {"value": "onprem", "metadata": {"file": "mlperf_log_utils.py", "lineno": 239}}
platform: {"value": "130xDGX-1 with V100", "metadata": {"file": "mlperf_log_utils.py", "lineno": 243}}
entry: {"value": "{'os': 'Ubuntu', 'nodes': \\"{'cpu': '2x Intel Xeon E5-2698 v4', 'accelerator': 'Tesla V100-SXM2-16GB', 'num_accelerators': '8', 'num_nodes': '130'}\\", 'hardware': 'DGX-1 with V100', 'interconnect': 'InfiniBand 100 Gb/sec (4X EDR)', 'framework': 'MXNet NVIDIA Release 19.05'}", "metadata": {}}
"""  # noqa: E501


def test_it_reads_a_systems_json_with_counts_as_strings_and_a_trailing_comma():
    text = b'{"system_name": "tpu-v3", "number_of_nodes": "1", "accelerators_per_node": "64",'
    text += b' "accelerator_model_name": "tpu-v3", "Division": "Closed", "status": "cloud",}'
    fields, why = describe(text, "v0.6")
    assert why == ""
    assert (fields["nodes"], fields["accelerators_per_node"], fields["accelerators"]) == (1, 64, 64)
    assert (fields["division"], fields["accelerator"]) == ("closed", "tpu-v3")


def test_it_reads_a_v05_entry_summing_node_kinds():
    entry = {
        "division": "closed",
        "hardware": "n1-highmem-96 w/8xV100",
        "framework": "TensorFlow 1.12.0",
        "nodes": [
            {"num_nodes": 1, "accelerator": "Tesla V100-SXM2-16GB", "num_accelerators": 8},
            {"num_nodes": 2, "accelerator": "Tesla V100-SXM2-16GB", "num_accelerators": 4},
        ],
    }
    fields, _ = describe(json.dumps(entry).encode(), "v0.5")
    assert (fields["nodes"], fields["accelerators_per_node"], fields["accelerators"]) == (
        3,
        None,
        16,
    )
    assert fields["accelerator"] == "Tesla V100-SXM2-16GB"


def test_it_reads_nvidias_v06_description_written_as_log_lines():
    fields, _ = describe(V06_LOGGED, "v0.6")
    assert fields["name"] == "130xDGX-1 with V100"
    assert (fields["nodes"], fields["accelerators"]) == (130, 1040)
    assert fields["accelerator"] == "Tesla V100-SXM2-16GB"
    assert fields["host_interconnect"] == "InfiniBand 100 Gb/sec (4X EDR)"


def test_it_says_why_a_description_cannot_be_read():
    why = "not JSON: Expecting value: line 1 column 1 (char 0)"
    assert describe(b"<html>", "v1.0") == (None, why)


def test_it_counts_only_whole_positive_numbers():
    assert [count(v) for v in ("8", 8.0, "1,024", "-", None, True, 0, "2.5")] == [
        8, 8, 1024, None, None, None, None, None,
    ]  # fmt: skip


def test_it_reads_the_division_close_as_closed():
    fields, _ = describe(b'{"division": "close", "system_name": "CloudBrainII"}', "v1.0")
    assert fields["division"] == "closed"
