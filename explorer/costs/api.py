"""The JSON API of the cost models: evaluate one model, and the JSON twins of the /costs/ plots.

    GET /api/cost-models/<id>/evaluate/?VAR=value...
    GET /api/cost-models/<id>/evaluate/?sweep=N&from=1&to=1024&points=20&scale=log
    GET /api/costs/plots/<name>/?<the /costs/ page's parameters>

Anonymous read only. Bad input is a 400 whose message names the parameter and what is allowed;
a formula that cannot be evaluated at the values given (log of 0, division by zero) is a 400
with the formula language's message. Never a 500 for a query string.
"""

from __future__ import annotations

import numpy as np
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.costs import FormulaError
from catalogue.models import CostModel
from explorer.costs import plots as cost_plots
from explorer.costs.plots import CostFormula, ParameterError, Query, query_value, read_number
from explorer.costs.presets import PRESETS, SIZE_HELP
from explorer.costs.views import cost_formula, cost_formulas

SWEEP_PARAMETERS = ("sweep", "from", "to", "points", "scale")
DEFAULT_SWEEP_POINTS = 50
SCALES = ("log", "linear")


class ReadOnlyCostView(APIView):
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]
    http_method_names = ["get", "head", "options"]


# /api/cost-models/<id>/evaluate/ --------------------------------------------------------------


def evaluation(formula: CostFormula, query: Query) -> dict:
    """The evaluate endpoint's document (pure). ParameterError names the parameter at fault;
    FormulaError comes from the formula itself."""
    variables = {v["name"]: v for v in formula.variables}
    allowed = set(variables) | set(SWEEP_PARAMETERS) | {"format"}
    for name in query:
        if name not in allowed:
            known = ", ".join(variables) or "none"
            message = f"unknown parameter {name} (this model's variables: {known})"
            raise ParameterError(message, name)
    swept = query_value(query, "sweep")
    values = {}
    for name, variable in variables.items():
        if name == swept:
            if query_value(query, name) is not None:
                raise ParameterError(f"{name} is swept: give from and to, not {name}", name)
            continue
        values[name] = read_number(
            query, name, variable["min"], variable["max"], variable["default"]
        )
    document = {
        "id": formula.id,
        "label": formula.label,
        "formula": formula.formula,
        "status": formula.status,
        "status_note": formula.status_note,
        "quantity": formula.quantity,
        "asymptotic": formula.asymptotic,
        "unit": formula.unit,
    }
    if swept is None:
        for name in SWEEP_PARAMETERS[1:]:
            if query_value(query, name) is not None:
                raise ParameterError(f"{name} needs sweep=<variable>", name)
        value = formula.parsed.evaluate(values)
        return document | {"value": _number(value), "variables": _numbers(values)}
    sweep, x = _sweep(query, swept, variables)
    y = formula.parsed.evaluate(values | {swept: x})
    series = {"x": [_number(v) for v in x], "y": [_number(v) for v in np.broadcast_to(y, x.shape)]}
    return document | {"variables": _numbers(values), "sweep": sweep, "series": series}


def _sweep(query: Query, name: str, variables: dict) -> tuple[dict, np.ndarray]:
    if name not in variables:
        known = ", ".join(variables) or "none"
        message = f"sweep must be one of this model's variables: {known} (got {name!r})"
        raise ParameterError(message, "sweep")
    low, high = variables[name]["min"], variables[name]["max"]
    scale = query_value(query, "scale") or "log"
    if scale not in SCALES:
        raise ParameterError(f"scale must be log or linear (got {scale!r})", "scale")
    start = read_number(query, "from", low, high, low)
    stop = read_number(query, "to", low, high, high)
    points = read_number(query, "points", 2, cost_plots.MAX_POINTS, DEFAULT_SWEEP_POINTS, True)
    if start >= stop:
        message = f"from must be less than to (got from={start:g}, to={stop:g})"
        raise ParameterError(message, "from")
    if scale == "log" and start <= 0:
        message = f"from must be greater than 0 on a log scale (got {start:g})"
        raise ParameterError(message, "from")
    spacing = np.geomspace if scale == "log" else np.linspace
    x = spacing(start, stop, int(points))
    sweep = {"variable": name, "from": _number(start), "to": _number(stop)}
    return sweep | {"points": int(points), "scale": scale}, x


def _number(value) -> int | float:
    value = float(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _numbers(values: dict) -> dict:
    return {name: _number(value) for name, value in values.items()}


SWEEP_DOC = (
    "Give any of the model's variables as ?NAME=value (its `variables` list has each name with "
    "min, max and default); the others take their defaults. To sweep one variable, give "
    "?sweep=NAME with from, to (default: the variable's bounds), points (2 to 200, default 50) "
    "and scale (log or linear, default log); the answer then has `sweep` and `series` "
    "{x, y} instead of `value`. Out-of-range or non-numeric values, unknown parameters and "
    "formulas that cannot be evaluated there (log of 0, division by zero) answer 400 with a "
    "message, keyed by the parameter (or `formula`)."
)


class EvaluateView(ReadOnlyCostView):
    @extend_schema(
        summary="Evaluate a cost model at given variable values, or sweep one variable",
        description=SWEEP_DOC,
        parameters=[
            OpenApiParameter(
                "variables",
                {"type": "object", "additionalProperties": {"type": "number"}},
                style="form",
                explode=True,
                description="The model's variables by name, e.g. ?N=1&C_in=3 (free-form).",
            ),
            OpenApiParameter("sweep", str, description="Name of the variable to sweep."),
            OpenApiParameter("from", float, description="First value of the sweep."),
            OpenApiParameter("to", float, description="Last value of the sweep."),
            OpenApiParameter("points", int, description="Number of sweep points, 2 to 200."),
            OpenApiParameter("scale", str, enum=list(SCALES), description="Sweep spacing (log)."),
        ],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                examples=[
                    OpenApiExample(
                        "tree allreduce",
                        value={
                            "id": 39,
                            "label": "Tree allreduce: time",
                            "formula": "2*log2(P)*(L + gamma*m*G)",
                            "status": "confirmed",
                            "status_note": "S2 (FACTS.md §2.4): ...",
                            "quantity": "time",
                            "asymptotic": False,
                            "unit": "s",
                            "value": 0.024006,
                            "variables": {"P": 8, "L": 1e-6, "gamma": 4, "m": 1000000, "G": 1e-9},
                        },
                    )
                ],
            ),
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="{parameter: [message]}"),
        },
    )
    def get(self, request, pk: int):
        model = get_object_or_404(CostModel.objects.select_related("technique"), pk=pk)
        formula = cost_formula(model, with_works=False)
        try:
            return Response(evaluation(formula, dict(request.query_params.lists())))
        except ParameterError as error:
            raise ValidationError({error.parameter or "parameters": [str(error)]}) from None
        except FormulaError as error:
            raise ValidationError({"formula": [str(error)]}) from None


# /api/costs/plots/<name>/ ---------------------------------------------------------------------


def plot_parameters() -> list[OpenApiParameter]:
    layer = [
        OpenApiParameter(
            "preset",
            str,
            enum=list(PRESETS),
            description="Layer preset (default alexnet-conv1); the sizes below override it.",
        ),
        *(
            OpenApiParameter(name, int, description=help_text)
            for name, help_text in SIZE_HELP.items()
        ),
    ]
    return [
        *layer,
        OpenApiParameter(
            "sweep", str, enum=list(cost_plots.SWEEPS), description="parallelism: size to sweep"
        ),
        OpenApiParameter("from", int, description="parallelism: first value of the sweep"),
        OpenApiParameter("to", int, description="parallelism: last value of the sweep"),
        OpenApiParameter(
            "ops",
            str,
            many=True,
            description="parallelism: operator keys (repeated or comma-separated), e.g. "
            "conv-fft, conv-direct.forward; default: the Table 6 algorithms (convolution) "
            "or the fully connected operators",
        ),
        OpenApiParameter("op", str, description="brent: operator key (default conv-direct)"),
        OpenApiParameter("p_max", int, description="brent: largest p (default 64·W/D)"),
        *(
            OpenApiParameter(name, float, description=f"allreduce: {name}")
            for name in cost_plots.ALLREDUCE_PARAMETERS
        ),
    ]


class PlotView(ReadOnlyCostView):
    @extend_schema(
        summary="A /costs/ plot as JSON: the Plotly figure, its data and the formulas used",
        description=(
            "Plots: " + ", ".join(cost_plots.PLOT_NAMES) + ". Every plot takes all of the "
            "/costs/ page's parameters (each uses its own); unknown parameters or bad values "
            "answer 400 {errors: [message]}. `formulas` lists each formula with its status, "
            "`unconfirmed` the labels of those not confirmed."
        ),
        parameters=plot_parameters(),
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request, name: str):
        if name not in cost_plots.PLOT_NAMES:
            raise NotFound(f"no plot {name!r} (plots: {', '.join(cost_plots.PLOT_NAMES)})")
        query = dict(request.query_params.lists())
        try:
            cost_plots.check_known(query, cost_plots.PAGE_PARAMETERS | {"format"})
            result = cost_plots.build_plot(name, cost_formulas(), query)
        except (ParameterError, FormulaError) as error:
            raise ValidationError({"errors": [str(error)]}) from None
        page = "/costs/" + (f"?{request.GET.urlencode()}" if request.GET else "")
        return Response(result | {"html_url": request.build_absolute_uri(page)})
