"""The demos: list, detail, and the API that lists and runs them."""

from django.urls import path

from explorer.demos import api, views

app_name = "demos"

urlpatterns = [
    path("demos/", views.demo_list, name="demo-list"),
    path("demos/<slug:slug>/", views.demo_detail, name="demo-detail"),
    path("api/demos/", api.DemoListView.as_view(), name="api-demo-list"),
    path("api/demos/<slug:slug>/", api.DemoDetailView.as_view(), name="api-demo-detail"),
    path("api/demos/<slug:slug>/run/", api.DemoRunView.as_view(), name="api-demo-run"),
]
