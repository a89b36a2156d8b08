"""Issue 20, fidelity, on the reader's pages and the API: alternatives shown as one placement and
counted with a note, every field of a work shown, a citation edge's evidence disclosed."""

import pytest

from tests.helpers import make_assignment, make_category, make_citation, make_work

pytestmark = pytest.mark.django_db


def test_it_shows_a_reference_with_alternative_sections_as_one_placement(client, survey):
    page = client.get("/works/balle2017endtoend/").content.decode()
    assert page.count("One of several possible sections (1 or 8 (application example)):") == 1
    assert (  # each alternative leads to its section's hub
        '<a href="/categories/bg-intro/">§1 Introduction</a> <em>or</em> '
        '<a href="/categories/bg-conclusions/">§8 Concluding remarks</a>'
    ) in page
    document = client.get("/api/works/balle2017endtoend/").json()
    assert {c["alternatives"] for c in document["categories"]} == {"1 or 8 (application example)"}


def test_it_says_which_counts_include_works_placed_at_one_of_several_sections(client, survey):
    tree = client.get("/api/categories/").json()
    background = next(node for node in tree if node["slug"] == "bg")
    intro = next(node for node in background["children"] if node["slug"] == "bg-intro")
    assert 0 < intro["alternative_count"] < intro["work_count"]
    assert background["status_label"] == "grouping added here"
    page = client.get("/categories/").content.decode()
    assert f"(including {intro['alternative_count']} placed at one of several possible" in page
    assert '<span class="status status-grouping"' in page


def test_it_counts_a_work_with_alternatives_in_one_subtree_once(client):
    parent = make_category("train")
    first, second = (make_category(code, parent=parent) for code in ("train-a", "train-b"))
    work = make_work("w2017")
    for category in (first, second):
        make_assignment(work, category, evidence="topic-inferred")
    work.assignments.update(alternatives="7.1/7.2")
    (root,) = client.get("/api/categories/").json()
    assert (root["work_count"], root["alternative_count"]) == (1, 1)
    assert [child["work_count"] for child in root["children"]] == [1, 1]


def test_it_shows_every_field_of_a_work(client, survey):
    manual = client.get("/works/intel2009intel/").content.decode()
    assert "<dt>Organization</dt><dd>Intel Corporation</dd>" in manual
    assert "<dt>Note</dt><dd>Reference Manual</dd>" in manual
    report = client.get("/works/ienne1993architectures/").content.decode()
    assert "<dt>Institution</dt><dd>EPFL</dd>" in report
    assert "<dt>Address</dt><dd>Lausanne, Switzerland</dd>" in report
    thesis = client.get("/works/krizhevsky2009learning/").content.decode()
    assert "<dt>School</dt><dd>unknown <small>(the source does not give it)</small></dd>" in thesis
    the_survey = client.get("/works/bennun2018demystifying/").content.decode()
    assert "reference numbers follow arXiv v2 (September 2018)</dd>" in the_survey
    assert "<dt>Publisher</dt><dd>ACM</dd>" in the_survey


def test_it_discloses_an_edges_evidence_on_the_page(client):
    citing, cited = make_work("a2017"), make_work("b2016", title="Cited work")
    edge = make_citation(citing, cited)
    edge.evidence_source = "https://example.org/a2017.pdf"
    edge.evidence_excerpt = "[3] B. Author. Cited work. 2016."
    edge.save()
    page = client.get("/works/a2017/").content.decode()
    assert '<details class="edge-evidence">' in page
    assert "Source: https://example.org/a2017.pdf" in page
    assert "Excerpt: <q>[3] B. Author. Cited work. 2016.</q>" in page


def test_it_shows_the_contradiction_behind_the_55_papers_and_marks_it(client, survey):
    page = client.get("/numbers/").content.decode()
    assert "S1 contradicts itself: one sentence says 55 of the 73 multi-node papers" in page
    assert '55 <span class="status status-recalled">unconfirmed reading</span>' in page
    assert "such a work counts in each level its alternatives name" in page
    assert "placed at one of several possible sections)" in page


def test_it_does_not_claim_the_survey_names_no_seed_works(client, survey):
    page = client.get("/snowball/").content.decode()
    assert "does not name any" not in page
    assert "whether the survey started from seed works, and which, is unknown" in page


def test_it_gathers_a_persons_works_under_every_spelling(client, survey):
    from catalogue.models import Author

    short, full = Author.objects.get(name="T. Hoefler"), Author.objects.get(name="Torsten Hoefler")
    assert short.person == full.person and full.person.name == "Torsten Hoefler"
    response = client.get(f"/authors/{full.pk}/")
    works = {work.key for work in response.context["works"]}
    assert "bennun2018demystifying" in works  # printed "Torsten Hoefler"
    assert "hoefler2017corrected" in works  # printed "T. Hoefler"
    page = response.content.decode()
    assert "One person, <strong>Torsten Hoefler</strong>, printed as" in page
    for spelling in (short, full):
        row = client.get(f"/api/authors/{spelling.pk}/").json()
        assert (row["person"], row["work_count"]) == ("Torsten Hoefler", len(works))
    listed = client.get("/api/authors/").json()
    assert all("person" in row for row in listed["results"])


def test_it_keeps_every_spelling_on_its_works_as_printed(client, survey):
    document = client.get("/api/works/hoefler2017corrected/").json()
    assert document["authors"][0] == "T. Hoefler"


def test_it_leaves_ambiguous_spellings_apart_and_says_why(client, survey):
    from catalogue.models import Author

    chen = Author.objects.get(name="X. W. Chen")
    assert chen.person is None
    assert "an initial does not tell people apart" in chen.identity_note
    page = client.get(f"/authors/{chen.pk}/").content.decode()
    assert "Not linked to similar spellings" in page


def test_the_home_page_says_which_level_counts_include_alternatives(client, survey):
    levels = {node["slug"]: node for node in client.get("/api/categories/").json()}
    with_alternatives = [node for node in levels.values() if node["alternative_count"]]
    assert with_alternatives
    page = client.get("/").content.decode()
    for node in with_alternatives:
        assert (
            f'<strong>{node["work_count"]}</strong> works <small class="alternatives">(including '
            f"{node['alternative_count']} placed at one of several possible sections)</small>"
        ) in page


def test_the_author_list_counts_each_page_as_each_author_does(
    client, survey, settings, django_assert_num_queries
):
    """The list pages the authors, then counts the page's works in one query
    (explorer/works/api.py): the same counts as each author's document, in constant queries."""
    settings.RESPONSE_CACHE = False
    for page_size in (10, 200):
        # 1 the authors' count, 2 the page, 3 its work counts
        with django_assert_num_queries(3):
            listed = client.get(f"/api/authors/?page_size={page_size}&page=3").json()
        assert len(listed["results"]) == page_size
        for row in listed["results"][:: page_size // 5]:
            alone = client.get(f"/api/authors/{row['id']}/").json()
            assert alone == row
