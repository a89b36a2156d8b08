"""Eras on the works pages, the API and the exports: the survey by default, the works after it on
request (?era=after|all), each with its source URL, never counted in the survey's figures."""

import csv
import io

import pytest

AFTER = 106


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "count"),
    [("", 270), ("era=survey", 270), ("era=after", AFTER), ("era=all", 270 + AFTER)],
)
def test_it_lists_each_era_in_the_api_and_on_the_page(client, survey, query, count):
    api = client.get(f"/api/works/?{query}&page_size=1").json()
    page = client.get(f"/works/?{query}")
    assert api["count"] == count
    assert page.status_code == 200 and page.context["page"].paginator.count == count


@pytest.mark.django_db
def test_it_gives_each_later_work_its_era_and_source_url_in_the_api(client, survey):
    # More than one page of 100 since the second pass (issue 37): read both pages.
    results = [
        work
        for page in (1, 2)
        for work in client.get(f"/api/works/?era=after&page_size=100&page={page}").json()["results"]
    ]
    assert len(results) == AFTER
    assert {work["era"] for work in results} == {"after"}
    assert all(work["source_url"].startswith(("https://", "http://")) for work in results)
    for work in results:
        assert {c["evidence"] for c in work["categories"]} == {"curated-after-survey"}
        assert all(c["source_note"] for c in work["categories"])
    gpipe = client.get("/api/works/huang2019gpipe/").json()
    # Issue 37: GPipe's title, year and arXiv id are read in Lingvo's list of
    # publications (the authors' repository at a pinned commit), first-hand.
    lingvo = (
        "https://github.com/tensorflow/lingvo/blob/"
        "e0be5dc4ce9b89d91c0be343f54c5d7a5b1bcb59/PUBLICATIONS.md"
    )
    assert (gpipe["era"], gpipe["source_url"]) == ("after", lingvo)
    assert gpipe["field_sources"]["arxiv"] == lingvo
    assert gpipe["field_source_kinds"]["arxiv"] == "first-hand"
    assert gpipe["categories"] == [
        {
            "code": "net-pipe",
            "name": "Pipelining",
            "section": "6.3",
            "extends": "",
            "evidence": "curated-after-survey",
            "source_note": "Extends pipelining (6.3) with micro-batch pipelining and "
            "re-materialization across accelerators.",
            "alternatives": "",
        }
    ]
    survey_work = client.get("/api/works/dean2012large/").json()
    assert (survey_work["era"], survey_work["source_url"]) == ("survey", "")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["/api/works/?era=later", "/works/?era=later", "/api/export/?format=csv&era=later"]
)
def test_it_refuses_an_unknown_era_with_a_message(client, survey, url):
    response = client.get(url)
    assert response.status_code == 400
    assert "later" in response.content.decode() and "era" in response.content.decode()


@pytest.mark.django_db
def test_it_exports_later_works_with_their_era_and_source(client, survey):
    body = client.get("/api/export/?format=csv&era=after").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == AFTER
    assert {row["era"] for row in rows} == {"after"} and all(row["source_url"] for row in rows)
    bib = client.get("/api/export/?format=bibtex&era=after&q=gpipe").content.decode()
    assert "era = {after}" in bib
    assert (
        "sourceurl = {https://github.com/tensorflow/lingvo/blob/"
        "e0be5dc4ce9b89d91c0be343f54c5d7a5b1bcb59/PUBLICATIONS.md}"
    ) in bib
    survey_bib = client.get("/api/export/?format=bibtex&level=ops").content.decode()
    assert "era =" not in survey_bib and "sourceurl" not in survey_bib


@pytest.mark.django_db
def test_it_shows_the_source_url_and_the_curated_mapping_on_a_later_work_page(client, survey):
    html = client.get("/works/shoeybi2019megatron/").content.decode()
    assert "after the survey" in html
    # Issue 37: Megatron-LM's record and arXiv id are read in its authors'
    # README at a pinned commit (first-hand), no longer on aggregators.
    readme = (
        "https://github.com/NVIDIA/Megatron-LM/blob/"
        "d98e8a64ddf34856e74b24714e3bedb2f5a39553/README.md"
    )
    assert f'href="{readme}"' in html
    assert "curated after the survey" in html and "added after the survey" in html
    assert "Intra-layer (tensor) model parallelism" in html
    assert "sourcescore.pages.dev" not in html and "wiki.papiers.ai" not in html


@pytest.mark.django_db
def test_it_shows_both_counts_on_the_home_page_in_two_lists(client, survey):
    response = client.get("/")
    assert (response.context["work_count"], response.context["later_count"]) == (270, AFTER)
    survey_levels = {
        root["slug"]: root["work_count"] for root in client.get("/api/categories/").json()
    }
    assert {level.code: level.work_count for level in response.context["levels"]} == survey_levels
    net = next(level for level in response.context["levels"] if level.code == "net")
    assert net.after_count > 0
    html = response.content.decode()
    assert "after the survey" in html and 'href="/works/?era=after"' in html


@pytest.mark.django_db
def test_it_keeps_the_survey_tree_and_marks_our_categories_elsewhere(client, survey):
    survey_tree = client.get("/api/categories/").json()
    codes = [child["slug"] for root in survey_tree for child in root["children"]]
    assert not any(code.startswith("after-") for code in codes)
    later = client.get("/api/categories/?era=after").json()
    net = next(root for root in later if root["slug"] == "net")
    model = next(child for child in net["children"] if child["slug"] == "net-model")
    tensor = next(child for child in model["children"] if child["slug"] == "after-net-tensor")
    assert (tensor["extends"], tensor["section"], tensor["work_count"]) == ("6.2", "", 7)
    assert client.get("/api/categories/?era=soon").status_code == 400
    assert client.get("/categories/?era=after").status_code == 200


@pytest.mark.django_db
def test_it_counts_the_later_works_apart_on_the_numbers_page(client, survey):
    response = client.get("/numbers/")
    context = response.context
    assert (context["work_count"], context["reference_count"], context["later_count"]) == (
        270,
        269,
        AFTER,
    )
    assert dict(context["provenance"])["reference-list-note"] == 600  # the survey's, as before
    assert context["later_edges"] == 0
    survey_years = {x for trace in context["timeline"]["data"] for x in trace["x"]}
    later_years = {x for trace in context["later_timeline"]["data"] for x in trace["x"]}
    assert max(survey_years) <= 2018 and min(later_years) == 2018 and max(later_years) > 2022
    assert sum(n for _, n in context["later_years"]) == AFTER
