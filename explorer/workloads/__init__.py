"""The workloads the features reason about, below every feature: the survey's networks as layer
tables, transformers from their configuration, the network model both become, the devices and
links, and the catalogue's cost models as formulas. Pure data and arithmetic, no request; the
planner composes them into a plan and the results and MLPerf pages count with them."""
