"""The reader's HTML pages. Thin: queries live in catalogue's QuerySets."""

from __future__ import annotations

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404, render

from catalogue import bibtex
from catalogue.models import Author, Category, Citation, Work


def home(request):
    levels = Category.objects.level_counts()
    works = Work.objects.for_list()
    context = {
        "levels": levels,
        "works": works,
        "work_count": len(works),
        "reference_count": sum(1 for w in works if w.survey_ref),
    }
    return render(request, "explorer/home.html", context)


def work_detail(request, key: str):
    work = get_object_or_404(
        Work.objects.for_list().prefetch_related(
            Prefetch("citations_out", queryset=Citation.objects.select_related("cited")),
            Prefetch("citations_in", queryset=Citation.objects.select_related("citing")),
            "techniques__cost_models",
        ),
        key=key,
    )
    context = {
        "work": work,
        "bibtex": bibtex.export_works([work]),
        "cites": work.citations_out.all(),
        "cited_by": work.citations_in.all(),
    }
    return render(request, "explorer/work_detail.html", context)


def author_detail(request, pk: int):
    author = get_object_or_404(Author, pk=pk)
    works = Work.objects.for_list().filter(authorships__author=author)
    return render(request, "explorer/author_detail.html", {"author": author, "works": works})

