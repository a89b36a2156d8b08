"""MLPerf Training read from MLCommons' results repositories: the fixture's shape (`fixture`, pure)
and its loader (`load`). The log parser, system descriptions and each round's scoring rule are
build-time code: fixtures/build/mlperf_logs.py, mlperf_systems.py and mlperf_scoring.py."""
