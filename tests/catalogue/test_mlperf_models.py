"""The MLPerf records: the test factory's score and the links a page builds from a row."""

import pytest

from catalogue.models import MlperfRun
from tests.helpers import make_mlperf_score

pytestmark = pytest.mark.django_db


def test_it_keeps_the_olympic_mean_of_the_factory_runs():
    score = make_mlperf_score(minutes=(30.0, 31.0, 29.0, 32.0, 28.0))
    assert score.minutes == 30.0
    assert score.system.runs.count() == 5


def test_it_links_a_run_log_at_its_commit():
    score = make_mlperf_score()
    run = MlperfRun.objects.get(system=score.system, index=0)
    assert score.system.round.file_url(run.path) == (
        "https://github.com/mlcommons/training_results_v1.0/blob/"
        "0000000000000000000000000000000000000000/NVIDIA/results/dgxa100_n8/resnet/result_0.txt"
    )
