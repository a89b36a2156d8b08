"""The planner's URLs: the page and its JSON twin."""

from django.urls import path

from . import accuracy_api, api, views

app_name = "planner"

urlpatterns = [
    path("planner/", views.planner_page, name="planner"),
    path("planner/derivations/", views.planner_derivations, name="derivations"),
    path("api/planner/", api.PlannerView.as_view(), name="api-planner"),
    path("api/planner/accuracy/", accuracy_api.AccuracyView.as_view(), name="api-accuracy"),
]
