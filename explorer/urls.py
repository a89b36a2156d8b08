"""Root URLconf: the reader's pages, the JSON API under /api/, the curators' admin."""

from django.contrib import admin
from django.urls import path

from explorer import views

urlpatterns = [
    path("", views.home, name="home"),
    path("works/<str:key>/", views.work_detail, name="work-detail"),
    path("authors/<int:pk>/", views.author_detail, name="author-detail"),
    path("admin/", admin.site.urls),
]
