"""MLPerf Training's measured scores, read from the submitters' logs: the list with its filters and
charts (/results/mlperf/), a system's and a score's pages, their JSON twins and the CSV, beside the
papers' results (explorer/results/)."""
