"""The linked views of a works selection (linked_views.py) fed from the database: the selected
keys in one query; the years, categories and citations from the catalogue's graph, and the
levels from the taxonomy, both kept per catalogue version. Shared by /works/ and the hubs."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, CharField, Count, QuerySet, Value, When
from django.http import QueryDict
from django.utils.http import urlencode

from catalogue import tree
from catalogue.graph_store import catalogue_graph
from catalogue.models import Category, Work
from catalogue.version import per_version
from explorer.web.links import link
from explorer.web.palette import NO_LEVEL_COLOUR, level_colours
from explorer.works import linked_views
from explorer.works.filters import WorkFilter
from explorer.works.linked_views import NO_LEVEL, NO_LEVEL_NAME, Selection

Pairs = list[tuple[str, str]]
# What a link from a view drops: the page (a narrower list starts at its first page) and the
# parameters the link sets.
YEAR_PARAMS = ("page", "year_min", "year_max")


@dataclass(frozen=True)
class Levels:
    order: list[str]  # level codes in the taxonomy's order
    names: dict[str, str]
    level_of: dict[str, str]  # any category code -> its level's code
    category_ids: dict[str, list[int]]  # level code -> the ids of its categories


def levels() -> Levels:
    return per_version("work-levels", _load_levels)


def _load_levels() -> Levels:
    categories = Category.objects.order_by("order", "code")
    rows = list(categories.values_list("pk", "code", "parent__code", "name"))
    parent = {code: parent for _, code, parent, _ in rows}
    order = [code for _, code, parent_code, _ in rows if parent_code is None]
    names = {code: name for _, code, _, name in rows if code in order}
    level_of = {code: tree.root_of(parent, code) for code in parent}
    category_ids: dict[str, list[int]] = {level: [] for level in order}
    for pk, code, _, _ in rows:
        category_ids[level_of[code]].append(pk)
    return Levels(order, names, level_of, category_ids)


def selection_of(works: QuerySet, filtered: bool, years: list[tuple]) -> Selection:
    """The selection's counts and graph: one query (its keys), the rest from the graph; above
    MAX_WORKS_WALKED works, one grouped query and no graph. `years`: the facets' works per year.
    Without a filter the same for every request, so kept per catalogue version."""

    def compute() -> Selection:
        taxonomy = levels()
        total = sum(n for _, n in years)
        if total > linked_views.MAX_WORKS_WALKED:
            return linked_views.counted(total, dict(years), _stacks(works, taxonomy))
        keys = list(works.order_by().values_list("key", flat=True))
        return linked_views.select(keys, catalogue_graph().graph, taxonomy.level_of, taxonomy.order)

    return compute() if filtered else per_version("works-linked", compute)


def _stacks(works: QuerySet, taxonomy: Levels) -> dict[tuple[int | None, str], int]:
    """(year, level) -> distinct works, as linked_views.select counts them (a work in two
    levels counts in each, one without a category under NO_LEVEL), in one grouped query."""
    level = Case(
        *[
            When(assignments__category_id__in=ids, then=Value(code))
            for code, ids in taxonomy.category_ids.items()
        ],
        default=Value(NO_LEVEL),
        output_field=CharField(),
    )
    rows = (
        Work.objects.filter(pk__in=works.order_by().values("pk"))
        .annotate(level=level)
        .values("year", "level")
        .annotate(n=Count("pk", distinct=True))
        .order_by()
    )
    return {(row["year"], row["level"]): row["n"] for row in rows}


def linked_context(selection: Selection, params: Pairs, graph_params: Pairs) -> dict:
    """What the template shows: the two SVGs and the level counts, each a link to the works
    list narrowed from `params` (the selection's query, page dropped); `graph_params` select the
    same works on /graph/."""
    taxonomy = levels()
    colours = {**level_colours(taxonomy.order), NO_LEVEL: NO_LEVEL_COLOUR}
    names = {**taxonomy.names, NO_LEVEL: NO_LEVEL_NAME}
    works_path = link("works:work-list")

    kept = urlencode([(k, v) for k, v in params if k not in YEAR_PARAMS])
    before = f"{works_path}?{kept}&" if kept else f"{works_path}?"

    def year_href(year: int) -> str:
        return f"{before}year_min={year}&year_max={year}"

    return {
        "selection": selection,
        "timeline_svg": linked_views.timeline_svg(selection, taxonomy.names, colours, year_href),
        "graph_svg": linked_views.graph_svg(
            selection, colours, lambda key: link("works:work-detail", key)
        ),
        "levels": _level_counts(selection, taxonomy.order, names, colours, params, works_path),
        "no_year": selection.years.get(None, 0),
        "graph_href": link("graph:graph", query=urlencode(graph_params)),
        "nodes_cap": linked_views.GRAPH_NODES_SHOWN,
        "walk_limit": linked_views.MAX_WORKS_WALKED,
    }


def _level_counts(selection, order, names, colours, params: Pairs, works_path: str) -> list:
    """(name, works, colour, link) per level holding any selected work; a link adds the level.
    No link when a level is chosen already (the others count the works also in them, which one
    `level` cannot select) nor for the works without a category (no filter selects them)."""
    counts = {level: 0 for level in [*order, NO_LEVEL]}
    for (_, level), n in selection.stacks.items():
        counts[level] = counts.get(level, 0) + n
    chosen = any(k == "level" for k, _ in params)
    kept = [(k, v) for k, v in params if k != "page"]
    return [
        {
            "code": level,
            "name": names.get(level, level),
            "count": n,
            "colour": colours.get(level, NO_LEVEL_COLOUR),
            "href": f"{works_path}?{urlencode([*kept, ('level', level)])}"
            if level and not chosen
            else "",
        }
        for level, n in counts.items()
        if n
    ]


def section_counts(roots: list, chosen: str | None, params: Pairs) -> list[dict]:
    """The categories one step below the narrowest node chosen (below the levels when none),
    those holding a selected work, from the page's category tree (its counts are the facets');
    each a link adding that category."""
    children = [child for root in roots for child in root.child_nodes]
    if chosen:
        node = next((n for n in _walk(roots) if n.code == chosen), None)
        children = node.child_nodes if node is not None else []
    kept = [(k, v) for k, v in params if k not in ("page", "category")]
    works_path = link("works:work-list")
    return [
        {
            "label": f"§{child.section} {child.name}" if child.section else child.name,
            "count": child.work_count,
            "href": f"{works_path}?{urlencode([*kept, ('category', child.code)])}",
        }
        for child in children
        if child.work_count
    ]


def _walk(nodes: list):
    for node in nodes:
        yield node
        yield from _walk(node.child_nodes)


def linked_for(params: Pairs) -> dict:
    """The linked views of the works that `params` select on /works/ (valid parameters, from
    our own pages: a hub's section), counted as that page counts them."""
    works_filter = WorkFilter(QueryDict(urlencode(params)), queryset=Work.objects.all())
    if not works_filter.is_valid():
        raise ValueError(f"not a works selection: {works_filter.form.errors}")
    works = works_filter.qs
    selection = selection_of(works, filtered=True, years=works.order_by().per_year())
    return linked_context(selection, params, params)
