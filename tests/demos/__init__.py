import os

# Demos run single-threaded in their worker; in-process runs in the tests should match. This only
# takes effect if numpy has not been imported yet (it reads these variables once, at import).
for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
