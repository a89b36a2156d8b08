"""The works: home, list, detail, categories, authors, numbers; their API and the export."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from explorer.works import api, exports, views

router = DefaultRouter()
# /api/ lists every endpoint, not only the router's (explorer/web/api_root.py).
router.include_root_view = False
router.register("works", api.WorkViewSet, basename="api-work")
router.register("categories", api.CategoryViewSet, basename="api-category")
router.register("authors", api.AuthorViewSet, basename="api-author")
router.register("citations", api.CitationViewSet, basename="api-citation")
router.register("techniques", api.TechniqueViewSet, basename="api-technique")
router.register("cost-models", api.CostModelViewSet, basename="api-cost-model")

app_name = "works"

urlpatterns = [
    path("", views.home, name="home"),
    path("works/", views.work_list, name="work-list"),
    path("suggest/", views.suggest, name="work-suggest"),
    path("api/suggest/", api.SuggestView.as_view(), name="api-work-suggest"),
    path("works/<str:key>/", views.work_detail, name="work-detail"),
    path("categories/", views.category_list, name="category-list"),
    path("authors/<int:pk>/", views.author_detail, name="author-detail"),
    path("numbers/", views.numbers, name="numbers"),
    path("sources/", views.sources, name="sources"),
    path("api/export/", exports.ExportView.as_view(), name="api-export"),
    path("api/", include(router.urls)),
]
