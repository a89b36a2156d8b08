"""Systems and their logs read from a round's paths alone (fixtures/build/mlperf_git.layout)."""

from fixtures.build.mlperf_git import Entry, layout


def entries(*paths):
    return [Entry(path, "0" * 40, 1) for path in paths]


def test_it_reads_the_v05_layout_with_its_entry_and_submission_files():
    tree = entries(
        "v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/results/tpu/resnet/result_0.txt",
        "v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/results/tpu/entry.json",
        "v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/submission.json",
    )
    [source] = layout("v0.5", tree).values()
    assert (source.submitter, source.system_id) == ("google", "cloud_v3.8/resnet-tpuv3-8/tpu")
    assert source.description == "v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/results/tpu/entry.json"
    assert source.submission == "v0.5.0/google/cloud_v3.8/resnet-tpuv3-8/submission.json"
    assert [folder for folder, _ in source.logs] == ["resnet"]


def test_it_reads_later_layouts_and_their_odd_folders():
    tree = entries(
        "NVIDIA/systems/dgxa100_n8.json",
        "NVIDIA/results/dgxa100_n8/resnet/result_0.txt",
        "NVIDIA/results/dgxa100_n8/resnet/result_1.txt",
        "Alibaba/results/v100-1280/result_1.txt",
        "Habana/results/SYS-420GH-TNGR/resnet/bert/result_0.txt",
        "NVIDIA/benchmarks/resnet/implementations/mxnet/result_0.txt",
    )
    found = layout("v1.0", tree)
    assert sorted(found) == [
        ("Alibaba", "v100-1280"),
        ("Habana", "SYS-420GH-TNGR"),
        ("NVIDIA", "dgxa100_n8"),
    ]
    nvidia = found[("NVIDIA", "dgxa100_n8")]
    assert nvidia.description == "NVIDIA/systems/dgxa100_n8.json"
    assert [folder for folder, _ in nvidia.logs] == ["resnet", "resnet"]
    assert [folder for folder, _ in found[("Alibaba", "v100-1280")].logs] == [""]
    assert [folder for folder, _ in found[("Habana", "SYS-420GH-TNGR")].logs] == ["resnet/bert"]
    assert found[("Habana", "SYS-420GH-TNGR")].description == ""
