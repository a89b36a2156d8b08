"""The citation graph, snowballing and data quality: pages and their JSON twins."""

from django.urls import path

from explorer.graph import api, views

app_name = "graph"

urlpatterns = [
    path("graph/", views.graph_page, name="graph"),
    path("snowball/", views.snowball_page, name="snowball"),
    path("data-quality/", views.data_quality, name="data-quality"),
    path("api/works/<str:key>/related/", api.RelatedWorksView.as_view(), name="api-work-related"),
    path("api/graph/", api.CitationGraphView.as_view(), name="api-graph"),
    path("api/snowball/", api.SnowballView.as_view(), name="api-snowball"),
    path("api/data-quality/", api.DataQualityView.as_view(), name="api-data-quality"),
]
