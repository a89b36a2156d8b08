"""A hub per taxonomy node, and its JSON twin (the tree itself is /categories/ in works)."""

from django.urls import path

from explorer.hubs import api, views

app_name = "hubs"

urlpatterns = [
    path("categories/<slug:slug>/", views.hub, name="hub"),
    path("api/categories/<slug:slug>/", api.HubView.as_view(), name="api-hub"),
]
