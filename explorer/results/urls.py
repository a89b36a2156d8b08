"""The measured results of the papers: the page, its JSON twin and the CSV export (MLPerf's
scores have their own, explorer/mlperf/urls.py)."""

from django.urls import path

from . import api, views

app_name = "results"

urlpatterns = [
    path("results/", views.results_page, name="results"),
    path("api/results/", api.ResultsView.as_view(), name="api-results"),
    path("api/results/csv/", api.ResultsCsvView.as_view(), name="api-results-csv"),
]
