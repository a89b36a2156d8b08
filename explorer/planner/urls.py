"""The planner's URLs: the page, its derivations and its accuracy, and their JSON twins."""

from django.urls import path

from . import api, views
from .accuracy import api as accuracy_api
from .accuracy import views as accuracy_views

app_name = "planner"

urlpatterns = [
    path("planner/", views.planner_page, name="planner"),
    path("planner/derivations/", views.planner_derivations, name="derivations"),
    path("planner/accuracy/", accuracy_views.accuracy_page, name="accuracy"),
    path("api/planner/", api.PlannerView.as_view(), name="api-planner"),
    path("api/planner/accuracy/", accuracy_api.AccuracyView.as_view(), name="api-accuracy"),
]
