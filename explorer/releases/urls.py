"""The releases: the page, its JSON twin and the files of each release."""

from django.urls import path

from . import api, views

app_name = "releases"

urlpatterns = [
    path("data/", views.data_page, name="data"),
    path("data/<str:version>/<str:name>", views.download, name="download"),
    path("api/data/", api.DataView.as_view(), name="api-data"),
]
