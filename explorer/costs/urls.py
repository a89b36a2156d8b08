"""The cost models: the costs page, the techniques, evaluation and the plots' JSON."""

from django.urls import path

from explorer.costs import api, views

app_name = "costs"

urlpatterns = [
    path("costs/", views.costs_page, name="costs"),
    path("techniques/", views.technique_list, name="techniques"),
    path(
        "api/cost-models/<int:pk>/evaluate/",
        api.EvaluateView.as_view(),
        name="api-cost-model-evaluate",
    ),
    path("api/costs/plots/<slug:name>/", api.PlotView.as_view(), name="api-cost-plot"),
]
