"""The measured results: the page, its JSON twin and the CSV export."""

from django.urls import path

from . import api, views

app_name = "results"

urlpatterns = [
    path("results/", views.results_page, name="results"),
    path("api/results/", api.ResultsView.as_view(), name="api-results"),
    path("api/results/csv/", api.ResultsCsvView.as_view(), name="api-results-csv"),
]
