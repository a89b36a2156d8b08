"""The /costs/ plots kept per catalogue version and per the parameters each plot reads.

A plot depends on the cost models and on its own parameters only (params.PLOT_PARAMETERS):
`/costs/?P=16` changes the allreduce plots and leaves the W-D plane, the parallelism sweep and
Brent's bounds as they were at the defaults, which cost three quarters of the page (the sweep
evaluates every operator at 80 layer sizes: about 50 ms). Each is computed once per version and
parameter set, in the shared cache (bounded by its culling), for the page and its JSON twin.
"""

from __future__ import annotations

import hashlib

from catalogue.version import per_version
from explorer.costs import plots as cost_plots
from explorer.costs.params import PLOT_PARAMETERS, Query, plot_query_key
from explorer.costs.records import CostFormula, cost_formulas


def formulas() -> list[CostFormula]:
    return per_version("cost-formulas", cost_formulas)


def plot(name: str, query: Query) -> dict:
    """`plots.build_plot` of the version's cost models, once per version and the parameters the
    plot reads; ParameterError or FormulaError (never kept) when the query is bad."""
    if name not in PLOT_PARAMETERS:
        return cost_plots.build_plot(name, formulas(), query)
    digest = hashlib.sha1(plot_query_key(name, query).encode()).hexdigest()[:20]
    return per_version(
        f"cost-plot:{name}:{digest}", lambda: cost_plots.build_plot(name, formulas(), query)
    )
