"""The reader's HTML pages. Thin: queries live in catalogue's QuerySets, figures in plots.py."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.paginator import EmptyPage
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse

from catalogue import bibtex, metadata
from catalogue.constants import SURVEY_KEY
from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
    Era,
    Provenance,
    Result,
    Technique,
    Work,
    evidence_report,
)
from catalogue.version import per_version
from explorer.web.errors import named_messages
from explorer.web.middleware import cached_for_anonymous
from explorer.web.pagination import counted_paginator, page_size_message
from explorer.works import plots
from explorer.works.filters import (
    MAX_QUERY_LENGTH,
    ORDERINGS,
    EraForm,
    WorkFilter,
    category_copy,
    category_tree,
)
from explorer.works.find_links import search_links
from explorer.works.selection import linked_context, section_counts, selection_of

DEFAULT_PAGE_SIZE = 50
HOME_NEWEST = 5  # the newest works after the survey on the home page; the rest on /works/
SURVEYED_WORKS_CLAIMED = 240  # FACTS.md §4, source S1: "the survey reviews 240 papers"


@cached_for_anonymous
def home(request):
    """Where a reader starts: the survey's map with its counts, the search, one way into each
    thing a reader does next, and the newest works after the survey (all works: /works/)."""
    return render(request, "works/home.html", per_version("home", home_context))


def home_context() -> dict:
    """Nothing on the home page depends on the request: built once per catalogue version."""
    counts = Work.objects.era_counts()
    # The works page's "newest first" (?era=after&ordering=-year), so that its link shows more.
    newest = Work.objects.after_survey().for_rows().order_by(*ORDERINGS["-year"])
    return {
        "levels": Category.objects.level_counts_by_era(),
        "work_count": counts["survey"],
        "reference_count": counts["references"],
        "later_count": counts["after"],
        "newest": list(newest[:HOME_NEWEST]),
        "technique_count": Technique.objects.count(),
        "result_count": Result.objects.count(),
    }


@cached_for_anonymous
def work_list(request):
    works_filter = WorkFilter(request.GET or None, queryset=Work.objects.for_rows())
    if works_filter.is_bound and not works_filter.is_valid():
        context = {"filter": works_filter, "errors": works_filter.form.errors}
        return render(request, "works/work_list.html", context, status=400)
    works = works_filter.qs
    page_size = _page_size(request)
    if page_size is None:
        context = {"filter": works_filter, "errors": {"page_size": [_page_size_message(request)]}}
        return render(request, "works/work_list.html", context, status=400)
    facets, tree = _facets(works, works_filter)
    page = _page(works, page_size, request.GET.get("page", "1"), count=facets["total"])
    searched = works_filter.form.cleaned_data.get("q", "") if works_filter.is_bound else ""
    if searched.strip():
        _mark_matches(page.object_list, searched)
    context = {
        "other_era": _other_era(works_filter) if searched.strip() else None,
        "filter": works_filter,
        "chips": [
            (label, _without(request, "page", *names))
            for label, names in works_filter.active_filters()
        ],
        "page": page,
        "facets": facets,
        "category_tree": tree,
        "query_string": _without(request, "page"),
        "export_query": _without(request, "page", "page_size", "ordering"),
        "max_export": settings.MAX_EXPORT,
        "linked": _linked_views(request, works, works_filter, facets, tree),
    }
    template = "works/_work_results.html" if _wants_fragment(request) else "works/work_list.html"
    return render(request, template, context)


def _other_era(works_filter) -> dict | None:
    """A search shown for one era: how many works of the other era match it too (one query)."""
    era = works_filter.selected_era
    if era not in ("survey", "after"):
        return None
    other = "after" if era == "survey" else "survey"
    label = "after the survey" if other == "after" else "in the survey"
    return {"era": other, "label": label, "count": works_filter.count_in_era(other)}


# Query parameters that change which works are listed (the others: which page, in what order).
NOT_FILTERS = {"page", "page_size", "ordering"}


def _is_filtered(works_filter) -> bool:
    return bool({name for name, value in works_filter.data.items() if value} - NOT_FILTERS)


def _linked_views(request, works, works_filter, facets: dict, tree: list) -> dict:
    """The selection drawn three ways above the list (a timeline, the level and section counts,
    the citation graph among the works), each mark a link narrowing the selection."""
    params = [(name, value) for name, values in request.GET.lists() for value in values]
    graph_params = [(name, value) for name, value in params if name not in NOT_FILTERS]

    def compute() -> dict:
        selection = selection_of(works, _is_filtered(works_filter), facets["years"])
        context = linked_context(selection, params, graph_params)
        cleaned = works_filter.form.cleaned_data if works_filter.is_bound else {}
        chosen = cleaned.get("category") or cleaned.get("level")
        context["sections"] = section_counts(tree, chosen.code if chosen else None, params)
        return context

    # The works page as most readers first see it (no parameter): drawn once per version.
    return per_version("works-linked-views", compute) if not params else compute()


def _facets(works, works_filter) -> tuple[dict, list]:
    """The facet counts and the category tree of the listed works. Without a filter they are
    the same for every page and order: computed once per catalogue version (at 100,000 works,
    most of the page's cost is there)."""

    def compute() -> tuple[dict, list]:
        return works.facet_counts(), category_tree_of(works, works_filter.selected_era)

    if _is_filtered(works_filter):
        return compute()
    return per_version("works-facets", compute)


def _mark_matches(works, text: str) -> None:
    """Each work of the page gets `match`: its title and a fragment with the words that matched
    highlighted (one query for the page)."""
    works = list(works)
    marks = Work.objects.highlights([work.pk for work in works], text)
    for work in works:
        work.match = marks.get(work.pk, {})


def category_tree_of(works, era: str) -> list:
    """The facet tree over the filtered works; the survey's list leaves our added categories out.
    The categories are read once per catalogue version; each request counts on its own copies."""
    survey_only = era == "survey"

    def categories() -> list[Category]:
        categories = Category.objects.filter(extends="") if survey_only else Category.objects
        return list(categories.order_by("order", "code"))

    name = "works-tree-nodes:" + ("survey" if survey_only else "all")
    kept = per_version(name, categories, in_process=True)
    return Category.objects.tree_with_counts(works, nodes=[category_copy(node) for node in kept])


def _page_size(request) -> int | None:
    raw = request.GET.get("page_size", str(DEFAULT_PAGE_SIZE))
    if raw.isdigit() and 1 <= int(raw) <= settings.MAX_PAGE_SIZE:
        return int(raw)
    return None


def _page_size_message(request) -> str:
    return page_size_message(request.GET.get("page_size"))


def _page(works, page_size: int, number: str, count: int):
    paginator = counted_paginator(works, page_size, count)  # the facets counted the works
    if not number.isdigit():
        raise Http404(f"Page {number!r} is not a page number.")
    try:
        return paginator.page(int(number))
    except EmptyPage as error:
        raise Http404(f"Page {number} does not exist ({paginator.num_pages} pages).") from error


def _without(request, *names: str) -> str:
    params = request.GET.copy()
    for name in names:
        params.pop(name, None)
    return params.urlencode()


def _wants_fragment(request) -> bool:
    return request.headers.get("X-Fragment") == "results"


def graph_links(work: Work) -> dict[str, str]:
    """The work's ego view and snowballs. The graph pages show the survey's era unless told
    (a later work is found in both) and hide the survey's node (it cites every reference: no
    snowball starts from it)."""
    ego = reverse("graph:graph") + f"?ego={work.key}&depth=1&direction=both"
    if work.key == SURVEY_KEY:
        return {"ego": f"{ego}&survey=1"}
    era = "" if work.era == Era.SURVEY else "&era=all"
    snowball = reverse("graph:snowball") + f"?seeds={work.key}&rounds=2{era}"
    return {
        "ego": ego + era,
        "backward": f"{snowball}&direction=backward",
        "forward": f"{snowball}&direction=forward",
    }


@cached_for_anonymous
def work_detail(request, key: str):
    work = get_object_or_404(
        Work.objects.for_list().prefetch_related(
            "techniques",
            # What the page shows of a cost model (its variables and curation record are JSON).
            Prefetch(
                "techniques__cost_models",
                queryset=CostModel.objects.only("technique", "label", "formula", "status"),
            ),
        ),
        key=key,
    )
    cites_total, cited_by_total = work.citation_totals
    fields = metadata.WorkFields.of(work, work.author_names)
    page_url = request.build_absolute_uri(work.get_absolute_url())
    context = {
        "work": work,
        "identifiers": metadata.identifier_links(fields),
        "citation_meta": metadata.citation_meta(fields, page_url),
        "json_ld": metadata.json_ld(metadata.scholarly_article(fields, page_url)),
        "bibtex": bibtex.export_works([work]),
        "cites": work.cites_shown,
        "cited_by": work.cited_by_shown,
        "cites_total": cites_total,
        "cited_by_total": cited_by_total,
        "search_links": search_links(work.title, work.author_names),
        "results": list(work.results.all()),  # measured results the work reports
        "graph_links": graph_links(work),
    }
    return render(request, "works/work_detail.html", context)


@cached_for_anonymous
def category_list(request):
    form = EraForm(request.GET)
    if not form.is_valid():
        error = "; ".join(named_messages(form.messages()))
        return render(request, "works/category_list.html", {"error": error}, status=400)
    era = form.selected_era()
    context = {"roots": category_tree(era), "era": era}
    return render(request, "works/category_list.html", context)


@cached_for_anonymous
def author_detail(request, pk: int):
    author = get_object_or_404(Author.objects.select_related("person"), pk=pk)
    # The person's works under every spelling (the identity table), each work once.
    spellings = list(author.person.spellings.all()) if author.person else [author]
    works = Work.objects.for_list().filter(
        pk__in=Authorship.objects.filter(author__in=spellings).values("work")
    )
    context = {"author": author, "spellings": spellings, "works": works}
    return render(request, "works/author_detail.html", context)


@cached_for_anonymous
def numbers(request):
    """The survey's counts, reproduced where the data has them, and said unknown where not; then
    the works after the survey, counted apart (never added to the survey's figures)."""
    return render(request, "works/numbers.html", per_version("numbers", numbers_context))


def numbers_context() -> dict:
    """Nothing on /numbers/ depends on the request: counted once per catalogue version."""
    in_survey = Work.objects.in_survey()
    levels = Category.objects.level_counts_by_era()
    names = {level.code: level.name for level in levels}
    figure = plots.timeline_figure(in_survey.per_year_and_level(), names)
    later = Work.objects.after_survey()
    later_figure = plots.timeline_figure(
        later.per_year_and_level(), names, title="Works after the survey per year, by level"
    )
    return {
        "levels": levels,
        "work_count": in_survey.count(),
        "reference_count": in_survey.references().count(),
        "later_count": later.count(),
        "later_edges": Citation.objects.touching_after_survey().count(),
        "surveyed_claimed": SURVEYED_WORKS_CLAIMED,
        "years": in_survey.references().per_year(),
        "evidence": Assignment.objects.works_per_evidence(),
        "provenance": Citation.objects.among_survey_works().per_provenance(),
        "provenance_labels": dict(Provenance.choices),
        "timeline": figure,
        "later_timeline": later_figure,
        "later_years": later.per_year(),
    }


@cached_for_anonymous
def suggest(request):
    """Works suggested while a search is typed (an htmx fragment); the box's arrow keys pick one
    (static/js/suggest.js). The JSON twin is /api/suggest/."""
    text = request.GET.get("q", "")[:MAX_QUERY_LENGTH]
    works = Work.objects.suggestions(text) if text.strip() else []
    box = request.GET.get("box", "")
    context = {
        "works": works,
        "q": text.strip(),
        "mode": "pick" if request.GET.get("mode") == "pick" else "go",
        "box_id": box if re.fullmatch(r"[a-z][a-z0-9-]{0,40}", box) else "suggestion",
    }
    return render(request, "works/_suggestions.html", context)


@cached_for_anonymous
def sources(request):
    """Where the catalogue's facts come from, in the reader's words: the page every "S1" and
    "the facts record" on the other pages links to. It takes no parameter: its content is HTML
    kept per catalogue version (six counting queries and their rendering: 20-30 ms)."""
    body = per_version("sources-page", sources_body)
    return render(request, "works/sources.html", {"body": body})


def sources_body() -> str:
    identifiers = Work.objects.identifier_report()
    context = {
        "reference_count": Work.objects.references().count(),
        "evidence": dict(Assignment.objects.works_per_evidence()),
        "provenance": dict(Citation.objects.per_provenance()),
        "provenance_labels": dict(Provenance.choices),
        "identifiers": identifiers,
        "source_evidence": evidence_report(identifiers),
    }
    return render_to_string("works/_sources_body.html", context)
