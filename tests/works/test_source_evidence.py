"""Issue 37 item 1: the kind of evidence of every recorded source, beside each "read on" link
(work pages, results), in the work's API document, and counted per kind of fact on /sources/
and /data-quality/ (the counts those pages give are the share script's, fixtures/build)."""

import importlib.util
import re
from pathlib import Path

import pytest

from catalogue.models import Work
from catalogue.source_kinds import FIRST_HAND, KINDS, source_kind

SCRIPT = Path(__file__).resolve().parents[2] / "fixtures" / "build" / "source_shares.py"
FIXTURES = SCRIPT.parents[1]


def share_script():
    spec = importlib.util.spec_from_file_location("source_shares", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counted(values: list[tuple[str, str, str]], fact: str) -> list[int]:
    kinds = [source_kind(url) for name, _, url in values if name == fact and url]
    return [kinds.count(kind) for kind in KINDS]


@pytest.mark.django_db
def test_the_work_document_gives_the_kind_of_each_source(client, survey):
    document = client.get("/api/works/snoek2012practical/").json()
    landing = (
        "https://papers.nips.cc/paper_files/paper/2012/hash/05311655a15b75fab86956663e1819cd-"
        "Abstract.html"
    )
    assert document["field_sources"] == {
        "arxiv": "https://lips.cs.princeton.edu/bibliography/snoek2012practical",
        "landing_url": landing,
    }
    assert document["field_source_kinds"] == {"arxiv": FIRST_HAND, "landing_url": FIRST_HAND}
    for work in Work.objects.exclude(field_sources={})[:20]:
        kinds = client.get(f"/api/works/{work.key}/").json()["field_source_kinds"]
        assert kinds == {name: source_kind(url) for name, url in work.field_sources.items()}


@pytest.mark.django_db
def test_the_work_page_shows_the_kind_beside_every_read_on_link(client, survey):
    work = Work.objects.get(key="iandola2016firecaffe")
    html = client.get("/works/iandola2016firecaffe/").content.decode()
    shown = re.findall(
        r'\(read on <a href="([^"]+)"[^>]*>[^<]*</a> <span class="source-kind '
        r'source-kind-([a-z-]+)"',
        html,
    )
    assert shown and {url: kind for url, kind in shown} == {
        url: source_kind(url) for url, kind in shown
    }
    sources = work.field_sources
    assert {url for url, _ in shown} <= set(sources.values())
    # Every figure read on a page, on the work's results: its link and then its kind.
    figures = re.findall(
        r'<a href="([^"]+)">read</a></span> <span class="source-kind source-kind-([a-z-]+)"', html
    )
    assert figures
    assert all(kind == source_kind(url.replace("&amp;", "&")) for url, kind in figures)


@pytest.mark.django_db
def test_the_results_page_shows_the_kind_of_every_read_figure(client, survey):
    html = client.get("/results/").content.decode()
    shown = re.findall(
        r'\(<a href="([^"]+)">read</a> <span class="source-kind '
        r'source-kind-([a-z-]+)"',
        html,
    )
    assert len(shown) == sum(
        1
        for row in client.get("/api/results/").json()["results"]
        for figure in row["figures"]
        if figure["status"] == "read"
    )
    assert all(kind == source_kind(url.replace("&amp;", "&")) for url, kind in shown)


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/sources/", "/data-quality/"])
def test_the_pages_count_the_sources_of_each_kind_of_fact_as_the_script_does(client, survey, page):
    script = share_script()
    values = [
        *script.work_values(FIXTURES),
        *script.result_values(FIXTURES),
        *script.placement_values(FIXTURES),
    ]
    html = client.get(page).content.decode()
    for fact, name in (
        ("identifiers", "identifiers"),
        ("bibliographic", "bibliographic fields"),
        ("result_figures", "result figures"),
        ("result_settings", "result settings"),
        ("placements", "placements"),
    ):
        row = re.search(rf'<tr id="evidence-{fact}"><td>[^<]*</td>((?:<td>\d+</td>){{3}})', html)
        assert row, fact
        assert [int(n) for n in re.findall(r"\d+", row[1])] == counted(values, name), fact
    # With no recorded page: identifiers a BibTeX record holds unsourced, citation edges whose
    # evidence names no page (the survey's reference list, unrecorded conversions).
    for fact, unsourced in (
        ("identifiers", len(script.unsourced_identifiers(FIXTURES))),
        ("placements", sum(1 for name, _, url in values if name == "placements" and not url)),
    ):
        row = re.search(rf'<tr id="evidence-{fact}">(?:<td>[^<]*</td>){{4}}<td>(\d+)</td>', html)
        assert int(row[1]) == unsourced, fact
    assert unsourced == 349  # 269 survey reference-list edges, 80 from unrecorded copies


@pytest.mark.django_db
def test_the_data_quality_document_gives_the_same_counts(client, survey):
    document = client.get("/api/data-quality/").json()["evidence"]
    assert document["kinds"] == list(KINDS)
    facts = {row["fact"]: row for row in document["facts"]}
    assert document["all"]["values"] == sum(row["values"] for row in facts.values())
    assert document["all"]["unsourced"] == facts["placements"]["unsourced"] == 349
    total = document["all_but_placements"]
    core = [row for fact, row in facts.items() if fact != "placements"]
    assert total["values"] == sum(row["values"] for row in core)
    assert total["counts"][FIRST_HAND] == sum(row["counts"][FIRST_HAND] for row in core)
    assert total["first_hand_percent"] == round(100 * total["counts"][FIRST_HAND] / total["values"])
