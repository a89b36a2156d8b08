"""Transformers from their configuration: the dataclasses (config), the MLPerf presets (mlperf)
and the sourced presets with their counts (shapes)."""
