"""/api/planner/accuracy/: how well the planner predicts MLPerf Training's measured scores
(explorer/planner/accuracy/calibration: fixtures/planner_accuracy.json), without the per-score list
unless `?predictions=1` (then paged: `page`, `page_size` up to MAX_PAGE_SIZE).

Anonymous read only; a bad or unknown parameter is a 400 in the shared error shape."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from explorer.web.forms import QueryForm
from explorer.web.links import link
from explorer.web.middleware import cached_for_anonymous
from explorer.web.query import DeclaredQuery
from explorer.web.renderers import FastJSONRenderer
from explorer.web.schema import document

from .calibration import accuracy
from .report import summary, with_score_urls

MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 100


class AccuracyForm(QueryForm):
    predictions = forms.ChoiceField(
        required=False, choices=[("", ""), ("0", "0"), ("1", "1")], help_text="1: the scores"
    )
    page = forms.IntegerField(required=False, min_value=1, max_value=10**6)
    page_size = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE_SIZE)


def accuracy_document(query) -> dict[str, Any]:
    """The accuracy document; its `predictions` only when asked for, one page of them."""
    data = AccuracyForm(query).checked()
    document = {k: v for k, v in accuracy().items() if k != "predictions"}
    every = accuracy()["predictions"]
    document["predictions_count"] = len(every)
    if data["predictions"] == "1":
        size = data["page_size"] or DEFAULT_PAGE_SIZE
        pages = max(1, math.ceil(len(every) / size))
        page = min(data["page"] or 1, pages)
        document["predictions"] = with_score_urls(every[(page - 1) * size : page * size])
        document["page"] = {"number": page, "size": size, "pages": pages}
    document["summary"] = summary(accuracy())  # every held-out score at once
    document["api_url"] = link("planner:api-accuracy")
    document["page_url"] = link("planner:accuracy")
    return document


ACCURACY = document(
    "PlannerAccuracy",
    {
        "format": "int",
        "status": "str",
        "model": "obj",
        "measured": "~str",
        "split": "obj",
        "efficiency": "list",
        "balances": "obj",
        "siblings": "obj",
        "errors": "list",
        "not_predicted": "list",
        "coverage": "list",
        "systematic": "list",
        "published": "obj",
        "summary": "obj",
        "predictions_count": "int",
        "predictions": "~list",
        "page_url": "str",
        "api_url": "str",
    },
)


@cached_for_anonymous
class AccuracyView(DeclaredQuery, APIView):
    query_form = AccuracyForm
    permission_classes = [AllowAny]
    renderer_classes = [FastJSONRenderer]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="The planner's accuracy against MLPerf Training's measured scores",
        description=(
            "The efficiency model (`model.formula`), how the scores were split (`split`: fitted "
            "on the early rounds, evaluated on later ones), the fitted efficiencies per device "
            'and model family (`efficiency`; `fitted_on` "all" rows are the planner\'s '
            "default), held-out errors per benchmark and strategy family (`errors`: median and "
            "90th percentile of |predicted / measured - 1|, `bias` the median ratio), coverage "
            "per benchmark, the reasons scores are not predicted, and where the predictions are "
            "systematically off; `summary`, every held-out score at once. `predictions=1` adds the "
            "scores' predictions, paged, each with `url`, its score's page (/planner/accuracy/ "
            "draws them against the measured throughput)."
        ),
        responses={200: ACCURACY, 400: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        return Response(accuracy_document(request.GET))
