"""The device catalogue: the page and its JSON twin."""

from django.urls import path

from . import api, views

app_name = "devices"

urlpatterns = [
    path("devices/", views.devices_page, name="devices"),
    path("api/devices/", api.DevicesView.as_view(), name="api-devices"),
]
