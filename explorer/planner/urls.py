"""The planner's URLs: the page and its JSON twin."""

from django.urls import path

from . import api, views

app_name = "planner"

urlpatterns = [
    path("planner/", views.planner_page, name="planner"),
    path("planner/derivations/", views.planner_derivations, name="derivations"),
    path("api/planner/", api.PlannerView.as_view(), name="api-planner"),
]
