import functools
import json
import re
from html import escape as html_escape
from urllib.parse import quote_plus, urlencode

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from catalogue import metadata
from catalogue.bibtex import display_text
from catalogue.constants import ENTRY_TYPE_WORDS
from catalogue.costs import FormulaError
from catalogue.mathml import formula_mathml
from catalogue.models import FormulaStatus, Work
from catalogue.paths import path_parts
from catalogue.source_kinds import classify
from explorer.web.links import link
from explorer.web.words import readable_number

register = template.Library()


def escape(value) -> str:
    """django.utils.html.escape's text (the same five characters replaced), without its check
    for lazy strings and its SafeString: the tags below escape some 500 values for a works page
    (3.9 -> 0.3 µs each, a tenth of the page) and mark their whole HTML safe once."""
    return html_escape(str(value))


@register.filter
def bib(value: str) -> str:
    """BibTeX field text for display: LaTeX accents decoded, protective braces dropped."""
    return display_text(value or "")


@register.filter
def entry_type(value: str) -> str:
    """A BibTeX entry type in words ("inproceedings": "conference paper")."""
    return ENTRY_TYPE_WORDS.get(value, value)


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with some parameters set (or removed, when set to None/"")
    and the page reset: for facet and sort links that keep every other filter."""
    # Pairs, not a QueryDict copy (a deep copy): a works page calls this a hundred times.
    kept = [
        (name, value)
        for name, values in context["request"].GET.lists()
        if name != "page" and name not in changes
        for value in values
    ]
    kept += [(name, value) for name, value in changes.items() if value not in (None, "")]
    encoded = urlencode(kept)
    return f"?{encoded}" if encoded else "?"


@register.simple_tag(takes_context=True)
def facet_tree(context, nodes: list) -> SafeString:
    """The works page's category facets: each node links to the list filtered by it (the other
    filters kept, as query_with does) and to its hub. The HTML of works/_facet_node.html once
    was, built here: 56 nodes through a recursive {% include %}, two tags each, were a third of
    the page's time."""
    kept = urlencode(
        [
            (name, value)
            for name, values in context["request"].GET.lists()
            if name not in ("page", "level", "category")
            for value in values
        ]
    )
    # The other filters' part of each node's link, encoded once (not once per node).
    before = f"?{kept}&" if kept else "?"
    hub_before, hub_after = path_parts("hubs:hub")

    def item(node) -> str:
        changed = f"{'category' if node.parent_id else 'level'}={quote_plus(node.code)}"
        section = f"§{escape(node.section)} " if node.section else ""
        empty = "" if node.work_count else ' class="empty"'
        badge = ' <span class="badge extension">added after the survey</span>'
        return (
            f'<li{empty}><a href="{escape(before + changed)}">{section}'
            f"{escape(node.name)}</a> ({node.work_count}) "
            f'<a class="hub-link" href="{escape(hub_before + node.code + hub_after)}" '
            f'aria-label="the hub of {escape(node.name)}" title="everything on this section">'
            f"hub</a>{badge if node.extends else ''}"
        )

    return tree_html(nodes, item, "</li>\n")  # as the template file ended


def tree_html(nodes: list, item, closing: str) -> SafeString:
    """Category nodes and their `child_nodes`, depth first: each node's `item(node)` (its opening
    and content, escaped by `item`), its children in a <ul>, then `closing`."""
    parts: list[str] = []

    def add(node) -> None:
        parts.append(item(node))
        if node.child_nodes:
            parts.append("<ul>")
            for child in node.child_nodes:
                add(child)
            parts.append("</ul>")
        parts.append(closing)

    for node in nodes:
        add(node)
    return mark_safe("".join(parts))  # noqa: S308 - every value escaped by `item`


@register.filter(is_safe=True)
def json_script(value, element_id: str | None = None) -> SafeString:
    """Django's json_script filter, with the same output, where this library is loaded. Django
    escapes < > & with str.translate, a Python-level lookup for each character of the document:
    a quarter of the time of /costs/ and /graph/ (their figures are 100 KB of JSON). Three
    replacements of an ASCII string (json.dumps escapes the rest) do the same in C."""
    text = json.dumps(value, cls=DjangoJSONEncoder)
    text = text.replace(">", "\\u003E").replace("<", "\\u003C").replace("&", "\\u0026")
    if element_id:
        return format_html(
            '<script id="{}" type="application/json">{}</script>', element_id, mark_safe(text)
        )
    return format_html('<script type="application/json">{}</script>', mark_safe(text))


# Technique or demo slug -> (the planner's query and fragment, the link's words): the planner
# prefilled for what a technique is about; no link for the others. A dict rather than an {% if %}
# chain in an include: /techniques/ asks 33 times, and the chain cost a tenth of the page.
PLANNER_LINKS = {
    **dict.fromkeys(
        ["data-parallelism", "data-parallel"],
        ("network=resnet-50&P=16#strategies", "plan data parallelism for a whole network"),
    ),
    **dict.fromkeys(
        [
            "allreduce",
            "allreduce-tree",
            "allreduce-butterfly",
            "allreduce-ring",
            "allreduce-rabenseifner",
            "parameter-server",
            "allreduce-vs-ps",
        ],
        (
            "network=resnet-50&P=64&sweep_max=1024#sweep",
            "compare the exchanges for a whole network",
        ),
    ),
    **dict.fromkeys(
        ["model-parallelism", "model-parallel"],
        ("network=vgg-16&P=4#strategies", "plan a layer split of a whole network"),
    ),
    **dict.fromkeys(
        ["pipelining", "pipeline-bubble"],
        ("network=vgg-16&P=4&micro_batches=16#strategies", "plan a pipeline for a whole network"),
    ),
    **dict.fromkeys(
        ["hybrid-parallelism", "hybrid-one-weird-trick"],
        ("network=alexnet&P=8&batch=1024#strategies", "plan the hybrid for AlexNet"),
    ),
    "gradient-quantization": (
        "network=resnet-50&P=64&bits=8#strategies",
        "plan with 8-bit gradients",
    ),
    "gradient-sparsification": (
        "network=resnet-50&P=64&density=0.01#strategies",
        "plan with 1 % of the gradient sent",
    ),
    **dict.fromkeys(
        ["tensor-parallelism", "tensor-parallel"],
        (
            "network=gpt3-175b&machine=a100-cluster#layouts",
            "plan GPT-3 175B's data × tensor × pipeline layouts on A100s",
        ),
    ),
    "sequence-parallelism": (
        "network=gpt3-175b&machine=a100-cluster#strategies",
        "compare tensor parallelism with and without sequence parallelism for GPT-3 175B",
    ),
    "expert-parallelism": (
        "network=deepspeed-moe-52b&machine=a100-cluster#strategies",
        "plan expert parallelism for a mixture-of-experts model",
    ),
    "transformer-compute": (
        "network=gpt3-175b&machine=a100-cluster#network",
        "count GPT-3 175B's FLOPs beside its paper",
    ),
}


@register.simple_tag
def planner_link(slug: str) -> str:
    """A link to the planner prefilled for a technique or demo `slug`; "" for the others."""
    if slug not in PLANNER_LINKS:
        return ""
    query, words = PLANNER_LINKS[slug]
    href = f"{link('planner:planner')}?{query}"
    return format_html('<a class="planner-link" href="{}">{}</a>', href, words)


@register.filter
def work_url(key: str) -> str:
    """The page of the work with this BibTeX key ({% url 'works:work-detail' key %}, without a
    reverse() for each of a page's hundreds of links)."""
    return Work.path_for(key)


@register.filter
def get_item(mapping: dict, key: str):
    return mapping.get(key)


@register.simple_tag
def source_kind_badge(url: str) -> SafeString:
    """The kind of evidence a "read on" address is (first-hand, index, secondary: the registry
    of catalogue/source_kinds.py), as a badge whose title says what the page is."""
    found = classify(url or "")
    return format_html(
        '<span class="source-kind source-kind-{}" title="{}">{}</span>',
        found.kind,
        found.what,
        found.kind,
    )


# How the data's own notes name their sources, and what a reader is told instead. The notes come
# from the fixtures ("S1 (ref-sections.csv, confirmed); likely_sections: 6.3"); /sources/ explains
# each source, and every mention links there.
NOTE_LINKS = re.compile(r"\bS(10|[1-9])\b|the facts record")
NOTE_WORDING = [
    (
        re.compile(r"^(S\d+(?:\([^)]*\))?)\s*\(ref-sections\.csv, confirmed\)"),
        r"confirmed by a source quoting the paper (\1)",
    ),
    (re.compile(r"\(ref-sections\.csv, confidence med\)"), "(medium confidence)"),
    (re.compile(r"\(ref-sections\.csv, confidence (\w+)\)"), r"(\1 confidence)"),
    (re.compile(r"\(ref-sections\.csv, confirmed\)"), "(confirmed)"),
    (re.compile(r"topic-inferred from title"), "inferred from the title's topic"),
    (re.compile(r"likely_sections:\s*"), "likely section "),
    (re.compile(r"\bref-sections\.csv\b"), "the provisional section list"),
    (re.compile(r"\bFACTS(?:\.md)?\b"), "the facts record"),
]
SOURCE_TITLES = {
    "1": "reading notes on arXiv v2 that quote the paper",
    "2": "quotes from the paper with section and page, from the same notes",
}


@register.filter
@functools.lru_cache(maxsize=4096)
def reader_wording(text: str) -> str:
    """A note as the data writes it, in the reader's words (plain text, no links). Kept per
    text: a page words the same notes again and again (the techniques page ~150 times)."""
    for pattern, replacement in NOTE_WORDING:
        text = pattern.sub(replacement, text)
    return text


@register.filter
def reader_note(text: str) -> SafeString:
    """A note in the reader's words, as HTML: each source key (S1, S2...) and the facts record
    link to their explanation on /sources/."""
    return _reader_note(text or "", link("works:sources"))


@functools.lru_cache(maxsize=4096)
def _reader_note(text: str, sources: str) -> SafeString:
    html = str(escape(reader_wording(text)))

    def link(match: re.Match) -> str:
        number = match.group(1)
        if number is None:
            return f'<a href="{sources}#facts">the facts record</a>'
        title = SOURCE_TITLES.get(number, "a source of the facts record")
        return f'<a href="{sources}#s{number}" title="{title}">S{number}</a>'

    # One pass, so that a link's title ("a source of the facts record") is not linked again.
    html = NOTE_LINKS.sub(link, html)
    return mark_safe(html)  # noqa: S308 - escaped above; only our own links added


# A path of this site in a text (a basis naming the page that states its model): not one
# that continues a word or a URL ("samples/s", "https://...").
SITE_PATH = re.compile(
    r"(?<![\w/.:])/(?:planner|results|works|graph|sources|data-quality)/[\w/#.-]*"
)


@register.filter
def site_paths(text: str) -> SafeString:
    """A text as HTML, each path of this site in it a link."""
    html = str(escape(text or ""))
    linked = SITE_PATH.sub(lambda m: f'<a href="{m[0]}">{m[0]}</a>', html)
    return mark_safe(linked)  # noqa: S308 - escaped above; only links to our own paths added


@register.filter
def formula(text: str) -> SafeString:
    """A cost formula typeset as mathematics (one printer: catalogue/mathml.py), with its text
    beside it to copy; a formula outside the language is shown as text only."""
    plain = escape(text or "")
    try:
        math = formula_mathml(text)
    except FormulaError:
        return mark_safe(f'<code class="formula-text">{plain}</code>')  # noqa: S308 - escaped
    return mark_safe(  # noqa: S308 - the printer escapes every name and number
        f'<span class="formula">{math}<code class="formula-text">{plain}</code></span>'
    )


@register.filter
def coins(work) -> str:
    """The title of a work's COinS span (an OpenURL ContextObject Zotero reads from a list);
    the work's author names are read by the list."""
    return _coins(tuple(work.author_names), *(getattr(work, name) for name in COINS_FIELDS))


# The fields of metadata.WorkFields that a COinS holds, besides the authors (no abstract).
COINS_FIELDS = [name for name in metadata.WorkFields.__dataclass_fields__ if name != "authors"]
COINS_FIELDS.remove("abstract")


@functools.lru_cache(maxsize=8192)
def _coins(authors: tuple[str, ...], *values) -> str:
    """COinS kept per work's field values: percent-encoding them in Python (urlencode, ~15
    fields per work) was a tenth of a works page of 50 rows."""
    fields = dict(zip(COINS_FIELDS, values, strict=True))
    return metadata.coins(metadata.WorkFields(authors=list(authors), **fields))


SI_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


@register.filter
def si(value) -> str:
    """A large number with three significant digits and an SI prefix: 2.02e14 -> '202 T'
    (followed by the unit in the template: '202 TFLOP/s')."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return ""
    for scale, prefix in SI_PREFIXES:
        if abs(number) >= scale:
            return f"{number / scale:.3g} {prefix}"
    return f"{number:.3g} "


@register.filter
def readable(value) -> str:
    """A figure with four significant digits, grouped from 10,000 (explorer.web.words)."""
    return readable_number(value)


@register.simple_tag
def work_row(work) -> SafeString:
    """A work as the lists show it (works page, author page, home page): its reference, title
    (with the search's highlights), authors, year, venue and COinS. Written here rather than in an
    included template: a page lists up to 50, and the include was half of the works page."""
    after = work.is_after_survey
    if work.survey_ref:
        ref = f'<span class="ref">[{escape(work.survey_ref)}]</span>'
    elif after:
        ref = '<span class="ref era era-after" title="after the survey">after</span>'
    else:
        ref = '<span class="ref">survey</span>'
    match = getattr(work, "match", None) or {}
    title = conditional_escape(match.get("title") or bib(work.title))  # highlights: safe HTML
    venue = f" · {escape(bib(work.venue))}" if work.venue else ""
    context = match.get("context")
    matched = f'<span class="matched">matched in: {conditional_escape(context)}</span>'
    authors = escape(bib(work.author_line) or "authors unknown")
    return mark_safe(  # noqa: S308 - every value is escaped
        f'<li class="work{" after-survey" if after else ""}">\n  {ref}\n'
        f'  <a href="{escape(work.get_absolute_url())}">{title}</a>\n'
        f'  <span class="meta">{authors} · {escape(work.year or "year unknown")}{venue}</span>\n'
        f"  {matched if context else ''}\n"
        f'  <span class="Z3988" title="{escape(coins(work))}"></span>\n</li>\n'
    )


@register.simple_tag
def cost_model_row(model) -> SafeString:
    """A cost model as a row of the techniques page's table: label, typeset formula, status
    (flagged unless confirmed, explained where derived or doubtful), section and a link to
    evaluate it. In Python rather than the template, and with f-strings rather than format_html:
    the page has ~90 rows, and the template engine's per-variable cost was most of the page."""
    asymptotic = " <small>(O(...) leading term)</small>" if model.asymptotic else ""
    unit = f" <small>{escape(model.unit)}</small>" if model.unit else ""
    flag = "" if model.status == "confirmed" else ' <span class="flag">not confirmed</span>'
    explained = ""
    if model.status in ("derived", "doubtful"):
        explained = f'<br><small class="status-note">{reader_note(model.status_note)}</small>'
    status = (
        f'<span class="status status-{escape(model.status)}" '
        f'title="{escape(reader_wording(model.status_note))}">'
        f"{escape(FormulaStatus(model.status).label)}</span>"
    )
    evaluate = link("costs:api-cost-model-evaluate", model.pk)
    return mark_safe(  # noqa: S308 - every value above is escaped or our own markup
        f"<tr>\n        <td>{escape(model.label)}{asymptotic}</td>\n"
        f"        <td>{formula(model.formula)}{unit}</td>\n"
        f"        <td>{status}{flag}{explained}</td>\n"
        f'        <td>§{escape(model.section)} <a href="{evaluate}">evaluate</a></td>\n      </tr>'
    )


@register.simple_tag
def citation_item(edge) -> SafeString:
    """A citation as a work page lists it (catalogue EdgeShown): the other work, its era if after
    the survey, and the edge's evidence folded. A tag rather than an include per edge: a work
    page lists up to CITATIONS_SHOWN edges each way."""
    era = '<span class="era era-after">after the survey</span> ' if edge.is_after_survey else ""
    excerpt = edge.evidence_excerpt
    excerpt = f"<br>Excerpt: <q>{escape(excerpt)}</q>" if excerpt else ""
    return mark_safe(  # noqa: S308 - every value is escaped
        f'<li>{era}<a href="{escape(edge.path)}">{escape(bib(edge.title))}</a> '
        '<details class="edge-evidence"><summary><small class="provenance">'
        f"{escape(edge.get_provenance_display())}</small></summary>"
        f"<small>Source: {escape(edge.evidence_source or 'unknown')}{excerpt}</small>"
        "</details>\n</li>"
    )


@register.simple_tag
def technique_article(technique) -> SafeString:
    """A technique as the techniques page shows it: its category and demo, the planner link,
    its summary, its cost models (cost_model_row) and the works that describe it (`work_rows`:
    plain rows). Written here rather than in the template: ~40 articles of ~25 variables each
    were most of the page's time."""
    category = technique.category
    demo = ""
    if technique.demo_slug:
        demo_path = link("demos:demo-detail", technique.demo_slug)
        demo = f' · <a href="{escape(demo_path)}">run the demo</a>'
    models = list(technique.cost_models.all())
    if models:
        rows = "".join(f"\n      {cost_model_row(model)}\n      " for model in models)
        costs = (
            '<table class="numbers formulas">\n      <tr><th>Cost model</th><th>Formula</th>'
            f"<th>Status</th><th>Section</th></tr>\n      {rows}\n    </table>\n    "
        )
    else:
        costs = '<p class="meta">No cost model: the sources give none for this technique.</p>'
    works = "".join(_technique_work(work) for work in technique.work_rows)
    works = f'\n    <ul class="works">{works}</ul>\n    ' if works else ""
    return mark_safe(  # noqa: S308 - every value is escaped or our own markup
        f'\n  <article class="technique" id="technique-{escape(technique.slug)}">\n'
        f"    <h3>{escape(technique.name)}</h3>\n"
        f'    <p class="category"><a href="{escape(link("hubs:hub", category.code))}">'
        f"{escape(category)}</a>{demo} {planner_link(technique.slug)}</p>\n"
        f"    <p>{reader_note(technique.summary)}</p>\n"
        f"    {costs}\n    {works}\n  </article>\n  "
    )


def _technique_work(work: dict) -> str:
    ref = f'<span class="ref">[{escape(work["survey_ref"])}]</span>' if work["survey_ref"] else ""
    year = f" ({escape(work['year'])})" if work["year"] else ""
    return (
        f'<li>{ref}<a href="{escape(work_url(work["key"]))}">{escape(bib(work["title"]))}</a>'
        f"{year}</li>"
    )
