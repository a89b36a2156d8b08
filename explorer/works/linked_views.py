"""The works page's linked views of one selection: a timeline of works per year stacked by
level, and the citation graph among the selected works. Every mark is a link that narrows the
selection (a year bar) or opens a work (a node), so the views work without JavaScript.

Pure: the selected keys and the catalogue's graph in, counts and SVG text out (no ORM, no
request). The caller builds the links, keeping the other filters.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from html import escape

from catalogue.constants import SURVEY_KEY
from catalogue.latex import display_text

# A graph of more nodes is a hairball at the width of a column; the most cited come first
# and /graph/ draws the whole selection.
GRAPH_NODES_SHOWN = 60
# Above this many works the selection is counted by the database and its graph is not drawn:
# walking the selection's keys and citations grows with it (about 8 ms a thousand works).
MAX_WORKS_WALKED = 1000
NO_LEVEL = ""  # a work without a category
NO_LEVEL_NAME = "no category"

TIMELINE_WIDTH, TIMELINE_HEIGHT = 480, 150
TIMELINE_MARGIN = {"left": 30, "right": 16, "top": 8, "bottom": 22}
GRAPH_WIDTH, GRAPH_HEIGHT = 900, 150
GRAPH_BASELINE = GRAPH_HEIGHT - 26
GRAPH_MARGIN_X = 16


@dataclass(frozen=True)
class Node:
    key: str
    title: str
    year: int | None
    level: str  # its first level in the taxonomy's order, NO_LEVEL without a category
    cited_here: int  # citations from the other selected works


@dataclass(frozen=True)
class Selection:
    """The selected works counted for the views (each count over distinct works)."""

    total: int
    years: dict[int | None, int]  # works per year (None: no year recorded)
    stacks: dict[tuple[int | None, str], int]  # (year, level): a work in two levels counts in each
    nodes: list[Node]  # the graph's nodes drawn, in year order
    edges: list[tuple[str, str]]  # (citing, cited) among the nodes drawn
    graph_works: int  # selected works in the graph (the survey's own node is left out)
    graph_edges: int  # edges among all of them
    walked: bool = True  # False: too many works to walk, counted by the database, no graph

    @property
    def capped(self) -> bool:
        return len(self.nodes) < self.graph_works


def counted(total: int, years: dict, stacks: dict) -> Selection:
    """A selection of more than MAX_WORKS_WALKED works: its counts, and no graph."""
    return Selection(total, years, stacks, [], [], 0, 0, walked=False)


def select(
    keys: Collection[str],
    graph,
    level_of: Mapping[str, str],
    levels: list[str],
    cap: int = GRAPH_NODES_SHOWN,
) -> Selection:
    """Count the selected works (`keys`) from the graph's node attributes (year, categories),
    and take the graph among them. `level_of` maps a category code to its level's code."""
    nodes = graph.nodes
    attributes = {key: nodes[key] for key in keys if key in nodes}
    years: Counter = Counter()
    stacks: Counter = Counter()
    levels_of: dict[tuple, list[str]] = {}  # works share few category sets: each read once
    for key in keys:
        found = attributes.get(key, {})
        year = found.get("year")
        years[year] += 1
        codes = found.get("categories", ())
        if codes not in levels_of:
            levels_of[codes] = work_levels(codes, level_of, levels)
        for level in levels_of[codes]:
            stacks[year, level] += 1
    shown, edges, graph_edges = _graph_among(attributes, graph.succ, cap)
    drawn = [
        Node(
            key=key,
            title=display_text(attributes[key].get("title") or key),
            year=attributes[key].get("year"),
            level=levels_of[attributes[key].get("categories", ())][0],
            cited_here=cited,
        )
        for key, cited in shown.items()
    ]
    drawn.sort(key=lambda node: (node.year or 9999, node.key))
    graph_works = len(attributes) - (SURVEY_KEY in attributes)
    return Selection(len(keys), dict(years), dict(stacks), drawn, edges, graph_works, graph_edges)


def work_levels(codes: Collection[str], level_of: Mapping[str, str], levels: list[str]) -> list:
    """The levels of a work's categories in the taxonomy's order ([NO_LEVEL] without any)."""
    held = {level_of[code] for code in codes if code in level_of}
    return [level for level in levels if level in held] or [NO_LEVEL]


def _graph_among(attributes: Mapping[str, dict], successors, cap: int):
    """The `cap` works most cited within the selection (key -> citations from it), the edges
    among them, and the number of edges among all. The survey's node is left out, as on
    /graph/: it cites every reference."""
    chosen = attributes.keys() - {SURVEY_KEY}
    cited_here: Counter = Counter()
    all_edges = []
    for citing in chosen:
        for cited in successors[citing]:
            if cited in chosen and cited != citing:
                cited_here[cited] += 1
                all_edges.append((citing, cited))

    def rank(key: str) -> tuple:
        return (-cited_here[key], attributes[key].get("year") or 9999, key)

    shown = {key: cited_here[key] for key in sorted(chosen, key=rank)[:cap]}
    edges = sorted((a, b) for a, b in all_edges if a in shown and b in shown)
    return shown, edges, len(all_edges)


def timeline_svg(
    selection: Selection,
    level_names: Mapping[str, str],
    colours: Mapping[str, str],
    year_href: Callable[[int], str],
) -> str:
    """Works per year stacked by level; each year's bar a link to that year (the other filters
    kept by `year_href`). Empty text when no selected work has a year."""
    heights: Counter = Counter()
    for (year, _), n in selection.stacks.items():
        if year is not None:
            heights[year] += n
    if not heights:
        return ""
    first, last = min(heights), max(heights)
    left, right = TIMELINE_MARGIN["left"], TIMELINE_WIDTH - TIMELINE_MARGIN["right"]
    top, bottom = TIMELINE_MARGIN["top"], TIMELINE_HEIGHT - TIMELINE_MARGIN["bottom"]
    slot = (right - left) / (last - first + 1)
    tallest = max(heights.values())
    plot = _Plot(slot, top, bottom, (bottom - top) / tallest, [*level_names, NO_LEVEL])
    style = (level_names, colours)
    bars = [
        _year_bar(selection, year, left + (year - first) * slot, plot, style, year_href(year))
        for year in sorted(heights)
    ]
    return (
        f'<svg class="timeline" viewBox="0 0 {TIMELINE_WIDTH} {TIMELINE_HEIGHT}" '
        'aria-labelledby="timeline-caption">'
        f'<g class="axes"><line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
        f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{tallest}</text>'
        f'<text x="{left - 4}" y="{bottom}" text-anchor="end">0</text>'
        f"{_year_labels(first, last, left, slot, bottom)}</g>"
        f'<g class="bars">{"".join(bars)}</g></svg>'
    )


@dataclass(frozen=True)
class _Plot:
    slot: float  # the width given to one year
    top: float
    bottom: float
    scale: float  # height of one work
    levels: list[str]  # stacked bottom up


def _year_bar(selection: Selection, year: int, x: float, plot: _Plot, style, href: str) -> str:
    """One year: a link holding its level segments, bottom up, and a hit area the height of the
    plot (a year of one work is still easy to click)."""
    names, colours = style
    width = max(plot.slot * 0.8, 1.0)
    x_bar = x + (plot.slot - width) / 2
    n = selection.years[year]
    rects, segments = [], []
    y = plot.bottom
    for level in plot.levels:
        count = selection.stacks.get((year, level), 0)
        if count:
            y -= count * plot.scale
            rects.append(
                f'<rect x="{x_bar:.1f}" y="{y:.1f}" width="{width:.1f}" '
                f'height="{count * plot.scale:.1f}" fill="{colours.get(level, "#c5ccd6")}"/>'
            )
            segments.append(f"{names.get(level, NO_LEVEL_NAME)} {count}")
    works = f"{year}: {n} work{'s' if n != 1 else ''} ({escape(', '.join(segments))})"
    return (
        f'<a href="{escape(href)}" data-year="{year}"><title>{works}; show only {year}</title>'
        f'<rect class="hit" x="{x:.1f}" y="{plot.top}" width="{plot.slot:.1f}" '
        f'height="{plot.bottom - plot.top}"/>{"".join(rects)}</a>'
    )


def _year_labels(first: int, last: int, left: float, slot: float, bottom: float) -> str:
    """Year labels at least 44 units apart (a label is 30-40 wide), on round years."""
    step = next((s for s in (1, 2, 5, 10, 20, 50) if s * slot >= 44), 100)
    return "".join(
        f'<text x="{left + (year - first + 0.5) * slot:.1f}" y="{bottom + 15}" '
        f'text-anchor="middle">{year}</text>'
        for year in range(first, last + 1)
        if year % step == 0
    )


def graph_svg(
    selection: Selection,
    colours: Mapping[str, str],
    work_href: Callable[[str], str],
) -> str:
    """The citation graph among the drawn nodes as an arc diagram: the works on a line in year
    order, each edge an arc above it (a layout that is computed in microseconds, reads the
    same on every load, and shows the direction of time). A node links to its work."""
    if not selection.nodes:
        return ""
    spacing = (GRAPH_WIDTH - 2 * GRAPH_MARGIN_X) / max(len(selection.nodes) - 1, 1)
    single = len(selection.nodes) == 1
    x_of = {
        node.key: GRAPH_WIDTH / 2 if single else GRAPH_MARGIN_X + index * spacing
        for index, node in enumerate(selection.nodes)
    }
    arcs = "".join(_arc(x_of[citing], x_of[cited]) for citing, cited in selection.edges)
    most = max((node.cited_here for node in selection.nodes), default=0) or 1
    circles = "".join(
        _graph_node(node, x_of[node.key], most, colours, work_href) for node in selection.nodes
    )
    return (
        f'<svg class="mini-graph" viewBox="0 0 {GRAPH_WIDTH} {GRAPH_HEIGHT}" '
        'aria-labelledby="graph-caption">'
        f'<line class="baseline" x1="0" y1="{GRAPH_BASELINE}" x2="{GRAPH_WIDTH}" '
        f'y2="{GRAPH_BASELINE}"/><g class="arcs">{arcs}</g><g class="nodes">{circles}</g>'
        f"{_graph_years(selection.nodes, x_of)}</svg>"
    )


def _arc(x1: float, x2: float) -> str:
    height = min(GRAPH_BASELINE - 6, abs(x2 - x1) * 0.55 + 4)
    middle = (x1 + x2) / 2
    return (
        f'<path d="M{x1:.1f},{GRAPH_BASELINE} Q{middle:.1f},{GRAPH_BASELINE - 2 * height:.1f} '
        f'{x2:.1f},{GRAPH_BASELINE}"/>'
    )


def _graph_node(node: Node, x: float, most: int, colours, work_href) -> str:
    radius = 3 + 4 * math.sqrt(node.cited_here / most)
    year = node.year if node.year is not None else "year unknown"
    cited = f"cited by {node.cited_here} of the selection"
    label = f"{node.title} ({year}), {cited}"
    return (
        f'<a href="{escape(work_href(node.key))}"><title>{escape(label)}</title>'
        f'<circle cx="{x:.1f}" cy="{GRAPH_BASELINE}" r="{radius:.1f}" '
        f'fill="{colours.get(node.level, "#c5ccd6")}"/></a>'
    )


def _graph_years(nodes: list[Node], x_of: Mapping[str, float]) -> str:
    """The year under the first node of each year, where there is room for it."""
    labels, last_x = [], -math.inf
    seen: set = set()
    for node in nodes:
        if node.year is None or node.year in seen:
            continue
        seen.add(node.year)
        x = x_of[node.key]
        if x - last_x >= 34:
            labels.append(
                f'<text x="{x:.1f}" y="{GRAPH_BASELINE + 18}" text-anchor="middle">'
                f"{node.year}</text>"
            )
            last_x = x
    return f'<g class="axes">{"".join(labels)}</g>'
