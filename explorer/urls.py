"""Root URLconf: the reader's pages, the JSON API under /api/, the curators' admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from explorer import (
    api,
    costs_api,
    costs_views,
    demo_api,
    demo_views,
    exports,
    graph_api,
    graph_views,
    views,
)

router = DefaultRouter()
router.register("works", api.WorkViewSet, basename="api-work")
router.register("categories", api.CategoryViewSet, basename="api-category")
router.register("authors", api.AuthorViewSet, basename="api-author")
router.register("citations", api.CitationViewSet, basename="api-citation")
router.register("techniques", api.TechniqueViewSet, basename="api-technique")
router.register("cost-models", api.CostModelViewSet, basename="api-cost-model")

api_urls = [
    path("export/", exports.export, name="api-export"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("works/", views.work_list, name="work-list"),
    path("works/<str:key>/", views.work_detail, name="work-detail"),
    path("categories/", views.category_list, name="category-list"),
    path("authors/<int:pk>/", views.author_detail, name="author-detail"),
    path("numbers/", views.numbers, name="numbers"),
    path("graph/", graph_views.graph_page, name="graph"),
    path("snowball/", graph_views.snowball_page, name="snowball"),
    path("data-quality/", graph_views.data_quality, name="data-quality"),
    # Before the works router, so that this path is not taken for a work key.
    path(
        "api/works/<str:key>/related/",
        graph_api.RelatedWorksView.as_view(),
        name="api-work-related",
    ),
    path("api/graph/", graph_api.CitationGraphView.as_view(), name="api-graph"),
    path("api/snowball/", graph_api.SnowballView.as_view(), name="api-snowball"),
    path("api/data-quality/", graph_api.DataQualityView.as_view(), name="api-data-quality"),
    path("costs/", costs_views.costs_page, name="costs"),
    path("techniques/", costs_views.technique_list, name="techniques"),
    path(
        "api/cost-models/<int:pk>/evaluate/",
        costs_api.EvaluateView.as_view(),
        name="api-cost-model-evaluate",
    ),
    path("api/costs/plots/<slug:name>/", costs_api.PlotView.as_view(), name="api-cost-plot"),
    path("demos/", demo_views.demo_list, name="demo-list"),
    path("demos/<slug:slug>/", demo_views.demo_detail, name="demo-detail"),
    path("api/demos/", demo_api.DemoListView.as_view(), name="api-demo-list"),
    path("api/demos/<slug:slug>/", demo_api.DemoDetailView.as_view(), name="api-demo-detail"),
    path("api/demos/<slug:slug>/run/", demo_api.DemoRunView.as_view(), name="api-demo-run"),
    path("", include("explorer.planner.urls")),
    path("api/", include(api_urls)),
    path("admin/", admin.site.urls),
]
