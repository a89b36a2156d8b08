"""Full-text search: the words a user types, the index kept in step with every edit, ranking
and highlights. The database tests run on SQLite (FTS5) and, with DATABASE_URL, PostgreSQL."""

import pytest
from django.core.management import call_command

from catalogue import search
from catalogue.models import Assignment, Author, Category, Technique, Work, WorkSearchText
from tests.helpers import make_assignment, make_category, make_technique, make_work

# --- The pure part ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, terms",
    [
        ("Pipelining", ("pipelining",)),
        ("lock-free SGD", ("lock", "free", "sgd")),
        ('"a" OR NEAR(x*) -y', ("near", "x", "y")),  # no operator reaches an engine
        ("the and of", ()),
        ("a b c d e f g h i j", ("b", "c", "d", "e", "f", "g", "h", "i")),
        ("data_parallel", ("data", "parallel")),
        ("Ünïcode", ("ünïcode",)),
    ],
)
def test_it_reads_plain_words(text, terms):
    assert search.parse(text).terms == terms


def test_it_writes_each_engines_syntax():
    query = search.parse("distributed pipel", prefix=True)
    assert query.fts5() == '"distributed" "pipel"*'
    assert query.tsquery() == "distributed & pipel:*"
    assert search.parse("pipel ", prefix=True).fts5() == '"pipel"'  # a finished word


def test_it_keeps_a_stop_word_that_may_be_unfinished():
    assert search.parse("the", prefix=True).terms == ("the",)
    assert search.parse("the", prefix=False).terms == ()


def test_it_marks_matches_in_escaped_html():
    fragment = f"<b>{search.MARK_START}Pipelining{search.MARK_END}</b> & more"
    assert search.marked_html(fragment) == "&lt;b&gt;<mark>Pipelining</mark>&lt;/b&gt; &amp; more"


def test_it_builds_a_document_as_people_read_it():
    text = search.document(
        "{GPipe}: Efficient {P}ipelining",
        ["Y. Huang", "Z. Chen"],
        "NeurIPS",
        ["a note", ""],
        ["§6.3 Pipelining", "Overlapping layers"],
    )
    assert text == {
        "title": "GPipe: Efficient Pipelining",
        "authors": "Y. Huang; Z. Chen",
        "topics": "§6.3 Pipelining · Overlapping layers",
        "venue": "NeurIPS",
        "notes": "a note",
    }


# --- The database part --------------------------------------------------------------------------


def keys(text: str, **kwargs) -> list[str]:
    works = Work.objects.search(text, **kwargs).order_by("-relevance", "key")
    return list(works.values_list("key", flat=True))


@pytest.fixture
def pipelining(db):
    net = make_category("net", name="Concurrency in networks", section="6")
    pipe = make_category("net-pipe", parent=net, name="Pipelining", section="6.3")
    make_work("huang2019gpipe", title="{GPipe}: Pipelined Training of Giant Networks")
    in_category = make_work("deng2012scalable", title="Scalable Stacking and Learning")
    make_assignment(in_category, pipe)
    make_work("other2015", title="Something else entirely")
    return pipe


@pytest.mark.parametrize("word", ["pipelining", "pipeline", "pipelined", "PIPELINES"])
def test_it_finds_every_form_of_a_word_ranked_title_first(pipelining, word):
    assert keys(word) == ["huang2019gpipe", "deng2012scalable"]


def test_it_requires_every_word(pipelining):
    assert keys("pipelining giant") == ["huang2019gpipe"]
    assert keys("pipelining nothingelse") == []
    assert keys("the") == []


def test_it_completes_an_unfinished_word(pipelining):
    assert keys("pipel", prefix=True) == ["huang2019gpipe", "deng2012scalable"]
    assert keys("pipel") == []


def test_it_searches_authors_venues_notes_and_techniques(pipelining):
    make_work("a2016", title="A", authors=("Q. Zhang",), venue="Proceedings of MLSys")
    make_work("b2016", title="B", note="Also known as the Hogwild paper")
    technique = make_technique("gossip", pipelining, name="Gossip averaging", summary="Peers.")
    technique.works.add(make_work("c2016", title="C"))
    assert keys("zhang") == ["a2016"]
    assert keys("mlsys") == ["a2016"]
    assert keys("hogwild") == ["b2016"]
    assert keys("gossip") == ["c2016"]
    assert keys("peer") == ["c2016"]


def test_it_highlights_what_matched(pipelining):
    ids = list(Work.objects.order_by("key").values_list("pk", flat=True))
    marked = Work.objects.highlights(ids, "pipeline")
    by_key = {Work.objects.get(pk=pk).key: value for pk, value in marked.items()}
    assert (
        by_key["huang2019gpipe"]["title"]
        == "GPipe: <mark>Pipelined</mark> Training of Giant Networks"
    )
    assert by_key["deng2012scalable"]["title"] == "Scalable Stacking and Learning"
    assert "<mark>Pipelining</mark>" in by_key["deng2012scalable"]["context"]
    assert set(by_key) == {"huang2019gpipe", "deng2012scalable"}


def test_it_follows_curators_edits(pipelining):
    work = Work.objects.get(key="other2015")
    work.title = "Pipelines everywhere"
    work.save()
    assert "other2015" in keys("pipelining")

    pipelining.name = "Stage overlap"
    pipelining.description = ""
    pipelining.save()
    assert sorted(keys("pipelining")) == ["huang2019gpipe", "other2015"]
    assert keys("overlap") == ["deng2012scalable"]

    Assignment.objects.filter(work__key="deng2012scalable").delete()
    assert keys("overlap") == []

    author = Author.objects.get(name="J. Smith")
    author.name = "J. Smithson"
    author.save()
    assert len(keys("smithson")) == 3

    Work.objects.get(key="huang2019gpipe").delete()
    assert keys("giant") == []
    assert WorkSearchText.objects.count() == Work.objects.count() == 2


def test_it_follows_techniques_and_their_works(pipelining):
    technique = make_technique("bubble", pipelining, name="Pipeline bubble", summary="Idle.")
    work = Work.objects.get(key="other2015")
    technique.works.add(work)
    assert keys("idle") == ["other2015"]
    technique.summary = "Waiting stages"
    technique.save()
    assert keys("waiting") == ["other2015"]
    work.techniques.clear()
    assert keys("waiting") == []
    work.techniques.add(technique)
    technique.delete()
    assert keys("waiting") == []


def test_it_follows_bulk_author_changes(pipelining):
    work = Work.objects.get(key="other2015")
    work.set_authors(["K. Lee", "M. Park"])
    assert keys("park") == ["other2015"]


def test_it_counts_and_filters_inside_subqueries(pipelining):
    matches = Work.objects.search("pipelining")
    assert Work.objects.filter(pk__in=matches.values("pk")).count() == 2
    assert matches.facet_counts()["total"] == 2


def test_it_rebuilds_the_index(pipelining):
    WorkSearchText.objects.all().delete()
    assert keys("pipelining") == []
    call_command("rebuild_search_index", verbosity=0)
    assert keys("pipelining") == ["huang2019gpipe", "deng2012scalable"]


def test_it_finds_the_surveys_pipelining_works(survey):
    found = keys("pipelining")
    # deng2012scalable is the §6.3 Pipelining work (category and technique); every work in §6.3
    # or with the Pipelining technique is found, whatever the form of the word.
    in_pipelining = set(
        Work.objects.filter(assignments__category__code="net-pipe").values_list("key", flat=True)
    ) | set(Technique.objects.get(slug="pipelining").works.values_list("key", flat=True))
    assert "deng2012scalable" in in_pipelining
    assert in_pipelining <= set(found)
    assert keys("pipeline") == keys("pipelined") == found
    assert Category.objects.get(code="net-pipe").name == "Pipelining"
