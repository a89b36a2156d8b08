"""load_mlperf on a fixture built from the small round: records, links, and a second load that
changes nothing."""

import gzip
import json
import shutil

import pytest
from django.conf import settings

from catalogue.mlperf.load import load_mlperf
from catalogue.models import MlperfBenchmark, MlperfRound, MlperfRun, MlperfScore, MlperfSystem
from fixtures.build.mlperf import build
from tests.helpers import make_category, make_technique, make_work

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(snapshot, tmp_path):
    out = tmp_path / "fixtures"
    out.mkdir()
    build({"v1.0": snapshot}, out / "mlperf.json.gz", tmp_path / "report.md")
    shutil.copy(settings.BASE_DIR / "fixtures" / "mlperf_benchmarks.json", out)
    return out


def test_it_loads_rounds_systems_runs_and_scores(folder):
    assert load_mlperf(folder) == "MLPerf: 13 rounds, 1 systems, 6 runs, 2 scores"
    system = MlperfSystem.objects.get()
    assert (system.round.version, system.submitter, system.system_id) == (
        "v1.0",
        "NVIDIA",
        "dgxa100_n8",
    )
    assert system.accelerators == 64
    assert MlperfRun.objects.get(status="absent").benchmark.slug == "unet3d"
    score = MlperfScore.objects.get(benchmark__slug="resnet")
    assert (score.minutes, score.runs_successful, score.runs_required) == (30.0, 4, 5)
    assert MlperfRound.objects.filter(available=False).count() == 12


def test_it_links_benchmarks_to_the_catalogue_where_it_has_the_records(folder):
    make_work("he2016deep")
    make_technique("large-minibatch", make_category("net-data-norm"))
    load_mlperf(folder)
    resnet = MlperfBenchmark.objects.get(slug="resnet")
    assert resnet.work.key == "he2016deep"
    assert list(resnet.techniques.values_list("slug", flat=True)) == ["large-minibatch"]
    assert list(resnet.categories.values_list("code", flat=True)) == ["net-data-norm"]
    assert resnet.aliases["v1.0"] == ["resnet"]
    assert resnet.sources[0].startswith("https://github.com/mlcommons/training_policies/blob/")


def test_it_changes_nothing_when_loaded_twice(folder, django_assert_max_num_queries):
    load_mlperf(folder)
    before = list(MlperfRun.objects.values_list("pk", "path", "minutes"))
    with django_assert_max_num_queries(1):
        assert load_mlperf(folder) == "MLPerf: unchanged"
    assert list(MlperfRun.objects.values_list("pk", "path", "minutes")) == before


def test_it_loads_nothing_without_a_fixture(tmp_path):
    assert load_mlperf(tmp_path) == "MLPerf: no fixture, nothing loaded"
    assert not MlperfRound.objects.exists()


def test_load_survey_loads_the_committed_fixture_and_the_survey_fixture_leaves_it_apart(
    request,
):
    from catalogue.mlperf.fixture import read

    fixture, _ = read(settings.BASE_DIR / "fixtures" / "mlperf.json.gz")
    request.getfixturevalue("survey")
    assert not MlperfRun.objects.exists()
    request.getfixturevalue("mlperf")
    assert MlperfRun.objects.count() == len(fixture["runs"]["rows"])
    assert MlperfSystem.objects.count() == len(fixture["systems"]["rows"])
    assert MlperfScore.objects.count() == len(fixture["scores"]["rows"])


def test_it_refuses_a_fixture_with_other_columns(folder):
    path = folder / "mlperf.json.gz"
    fixture = json.loads(gzip.decompress(path.read_bytes()))
    fixture["runs"]["columns"][3] = "status); DROP TABLE x; --"
    path.write_bytes(gzip.compress(json.dumps(fixture).encode()))
    with pytest.raises(ValueError, match="runs columns are not system, benchmark"):
        load_mlperf(folder)
    assert not MlperfRun.objects.exists()
