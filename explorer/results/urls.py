"""The measured results: the page, its JSON twin and the CSV export."""

from django.urls import path

from . import api, views

app_name = "results"

urlpatterns = [
    path("results/", views.results_page, name="results"),
    path("api/results/", api.ResultsView.as_view(), name="api-results"),
    path("api/results/csv/", api.ResultsCsvView.as_view(), name="api-results-csv"),
    path("results/mlperf/", views.mlperf_page, name="mlperf"),
    path("results/mlperf/systems/<int:pk>/", views.mlperf_system_page, name="mlperf-system"),
    path(
        "results/mlperf/systems/<int:pk>/<slug:benchmark>/",
        views.mlperf_score_page,
        name="mlperf-score",
    ),
    path("api/results/mlperf/", api.MlperfView.as_view(), name="api-mlperf"),
    path("api/results/mlperf/csv/", api.MlperfCsvView.as_view(), name="api-mlperf-csv"),
    path(
        "api/results/mlperf/systems/<int:pk>/",
        api.MlperfSystemView.as_view(),
        name="api-mlperf-system",
    ),
    path(
        "api/results/mlperf/systems/<int:pk>/<slug:benchmark>/",
        api.MlperfScoreView.as_view(),
        name="api-mlperf-score",
    ),
]
