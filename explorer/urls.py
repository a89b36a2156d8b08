"""Root URLconf: one include per feature (each keeps its own paths), the API's schema, the admin."""

from django.contrib import admin
from django.urls import include, path

from explorer.web.api_root import api_root
from explorer.web.schema_view import SchemaView, api_docs

urlpatterns = [
    path("api/", api_root, name="api-root"),
    # The graph's `api/works/<key>/related/` comes before the works router, so that it is not
    # taken for a work key (a key may contain dots and colons).
    path("", include("explorer.graph.urls")),
    path("", include("explorer.costs.urls")),
    path("", include("explorer.demos.urls")),
    path("", include("explorer.hubs.urls")),
    path("", include("explorer.works.urls")),
    path("", include("explorer.planner.urls")),
    path("", include("explorer.results.urls")),
    path("", include("explorer.mlperf.urls")),
    path("", include("explorer.devices.urls")),
    path("", include("explorer.releases.urls")),
    path("api/schema/", SchemaView.as_view(), name="api-schema"),
    path("api/docs/", api_docs, name="api-docs"),
    path("admin/", admin.site.urls),
]
