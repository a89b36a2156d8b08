"""MLPerf Training's URLs, under /results/ beside the papers' results (the addresses links kept)."""

from django.urls import path

from . import api, views

app_name = "mlperf"

urlpatterns = [
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
