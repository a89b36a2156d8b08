"""The demos: list, detail, runs (queued, with permalinks), and the API that lists and runs them."""

from django.urls import path

from explorer.demos import api, views

app_name = "demos"

urlpatterns = [
    path("demos/", views.demo_list, name="demo-list"),
    path("demos/<slug:slug>/", views.demo_detail, name="demo-detail"),
    path("demos/<slug:slug>/runs/", views.start_demo_run, name="demo-run-start"),
    path("demos/<slug:slug>/runs/<int:pk>/", views.demo_run, name="demo-run"),
    path("api/demos/", api.DemoListView.as_view(), name="api-demo-list"),
    path(
        "api/demos/runs/<int:pk>/",
        api.DemoRunDetailView.as_view(),
        name="api-demo-run-detail",
    ),
    path("api/demos/<slug:slug>/", api.DemoDetailView.as_view(), name="api-demo-detail"),
    path("api/demos/<slug:slug>/run/", api.DemoRunView.as_view(), name="api-demo-run"),
    path("api/demos/<slug:slug>/runs/", api.DemoRunCreateView.as_view(), name="api-demo-runs"),
]
