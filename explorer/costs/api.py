"""The JSON API of the cost models: evaluate one model, and the JSON twins of the /costs/ plots.

    GET /api/cost-models/<id>/evaluate/?VAR=value...
    GET /api/cost-models/<id>/evaluate/?sweep=N&from=1&to=1024&points=20&scale=log
    GET /api/costs/plots/<name>/?<the /costs/ page's parameters>

Anonymous read only. Bad input is a 400 whose message names the parameter and what is allowed;
a formula that cannot be evaluated at the values given (log of 0, division by zero) is a 400
with the formula language's message. Never a 500 for a query string.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from django.http import QueryDict
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from catalogue.costs import FormulaError
from catalogue.models import CostModel
from explorer.costs import kept, params
from explorer.costs import plots as cost_plots
from explorer.costs.params import SWEEP_PARAMETERS, EvaluateForm
from explorer.costs.records import CostFormula, ParameterError, cost_formula
from explorer.web.errors import NON_FIELD, ApiError
from explorer.web.links import link
from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document, field_schema

EVALUATION = document(
    "Evaluation",
    {
        "id": "int",
        "label": "str",
        "formula": "str",
        "status": "str",
        "status_note": "str",
        "quantity": "str",
        "asymptotic": "bool",
        "unit": "str",
        "variables": "obj",
        "value": "~num",  # at one point; a sweep answers `sweep` and `series` instead
        "sweep": "~obj",
        "series": "~obj",
    },
)
PLOT = document(
    "CostPlot",
    {
        "name": "str",
        "description": "str",
        "formulas": "list",
        "unconfirmed": "list",
        "figure": "obj",
        "data": "obj",
        "html_url": "str",
    },
)


@cached_for_anonymous
class ReadOnlyCostView(APIView):
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]


# /api/cost-models/<id>/evaluate/ --------------------------------------------------------------


NO_VARIABLES = SimpleNamespace(variables=[])  # EvaluateForm's model-independent fields only
VARIABLE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


def evaluation(formula: CostFormula, form: EvaluateForm) -> dict:
    """The evaluate endpoint's document from a valid form (pure but for the form's values);
    FormulaError comes from the formula itself."""
    values, data = form.values(), form.cleaned_data
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
    swept = data["sweep"]
    if swept is None:
        value = formula.parsed.evaluate(values)
        return document | {"value": _number(value), "variables": _numbers(values)}
    spacing = np.geomspace if data["scale"] == "log" else np.linspace
    x = spacing(data["from"], data["to"], data["points"])
    y = formula.parsed.evaluate(values | {swept: x})
    series = {"x": [_number(v) for v in x], "y": [_number(v) for v in np.broadcast_to(y, x.shape)]}
    sweep = {"variable": swept, "from": _number(data["from"]), "to": _number(data["to"])}
    sweep |= {"points": data["points"], "scale": data["scale"]}
    return document | {"variables": _numbers(values), "sweep": sweep, "series": series}


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


def evaluate_parameters() -> list[OpenApiParameter]:
    """The sweep's parameters from EvaluateForm's own fields, as one exploded object whose
    `sweep` is required: from, to, points and scale are accepted only with sweep (the form's
    rule). The variables are the model's own (names and bounds in its `variables` list), so
    the schema can only say that each is a number."""
    fields = EvaluateForm(QueryDict(), NO_VARIABLES).fields
    sweep = {name: field_schema(fields[name])[0] for name in SWEEP_PARAMETERS}
    sweep["sweep"] = {"type": "string", "pattern": VARIABLE_NAME}
    for bound in ("from", "to"):
        sweep[bound] = {"type": "number"}  # within the swept variable's bounds
    return [
        OpenApiParameter(
            "variables",
            {"type": "object", "additionalProperties": {"type": "number"}},
            style="form",
            explode=True,
            description="The model's variables by name, e.g. ?N=1&C_in=3 (each within the "
            "bounds its `variables` entry lists; unknown names are refused).",
        ),
        OpenApiParameter(
            "sweep",
            {"type": "object", "properties": sweep, "required": ["sweep"]},
            style="form",
            explode=True,
            description="Sweep one variable: sweep=NAME, from < to within its bounds (from > 0 "
            "on a log scale), points 2 to 200, scale log or linear.",
        ),
    ]


class EvaluateView(ReadOnlyCostView):
    @extend_schema(
        summary="Evaluate a cost model at given variable values, or sweep one variable",
        description=SWEEP_DOC,
        parameters=evaluate_parameters(),
        responses={
            200: OpenApiResponse(
                EVALUATION,
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
        },
    )
    def get(self, request, pk: int):
        model = get_object_or_404(CostModel.objects.select_related("technique"), pk=pk)
        formula = cost_formula(model, with_works=False)
        form = EvaluateForm(request.query_params, formula)  # the model's variables: its form
        form.checked()
        try:
            return Response(evaluation(formula, form))
        except FormulaError as error:
            raise ApiError({"formula": [str(error)]}) from None


# /api/costs/plots/<name>/ ---------------------------------------------------------------------


class PlotView(DeclaredQuery, ReadOnlyCostView):
    query_form = params.PlotsForm

    @extend_schema(
        summary="A /costs/ plot as JSON: the Plotly figure, its data and the formulas used",
        description=(
            "Plots: " + ", ".join(cost_plots.PLOT_NAMES) + ". Every plot takes all of the "
            "/costs/ page's parameters (each uses its own); unknown parameters or bad values "
            "answer 400, keyed by parameter. `formulas` lists each formula with its status, "
            "`unconfirmed` the labels of those not confirmed."
        ),
        responses={200: PLOT, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request, name: str):
        if name not in cost_plots.PLOT_NAMES:
            raise NotFound(f"no plot {name!r} (plots: {', '.join(cost_plots.PLOT_NAMES)})")
        query = dict(request.query_params.lists())
        try:
            result = kept.plot(name, query)
        except ParameterError as error:
            raise ApiError({error.parameter or NON_FIELD: [str(error)]}) from None
        except FormulaError as error:
            raise ApiError(str(error)) from None
        page = link("costs:costs", query=request.GET.urlencode())
        return Response(result | {"html_url": request.build_absolute_uri(page)})
