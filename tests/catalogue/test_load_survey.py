"""load_survey: the whole survey in the catalogue, idempotent and atomic."""

import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db.models import Count

from catalogue.bibtex import display_text
from catalogue.models import Assignment, Category, Citation, Work
from tests.helpers import catalogue_rows

SEED = Path(settings.BASE_DIR).parent / "shared" / "seeds" / "000_f03f5c3fb2a58a7f.txt"


@pytest.mark.django_db
def test_it_loads_270_works_each_reference_assigned(survey):
    # The survey's own works; the works after it are counted apart (test_after_survey.py).
    assert Work.objects.in_survey().count() == 270
    assert Work.objects.references().count() == 269
    survey_work = Work.objects.get(key="bennun2018demystifying")
    assert (survey_work.doi, survey_work.arxiv_id, survey_work.volume) == (
        "10.1145/3320060",
        "1802.09941",
        "52",
    )
    unassigned = Work.objects.references().annotate(n=Count("assignments")).filter(n=0)
    assert list(unassigned) == []
    assert sorted(Work.objects.references().values_list("survey_ref", flat=True)) == list(
        range(1, 270)
    )


@pytest.mark.django_db
def test_it_loads_the_category_tree_and_evidence_levels(survey):
    assert [c.code for c in Category.objects.top_level()] == ["ops", "net", "train", "bg"]
    in_survey = Assignment.objects.filter(work__era="survey")
    evidence = dict(in_survey.values_list("evidence").annotate(n=Count("pk")).order_by())
    assert evidence == {"confirmed": 39, "partial": 33, "topic-inferred": 260}
    confirmed_refs = Work.objects.filter(assignments__evidence="confirmed").distinct().count()
    assert confirmed_refs == 34


@pytest.mark.django_db
def test_it_loads_every_citation_edge_with_its_provenance(survey):
    in_survey = Citation.objects.filter(citing__era="survey", cited__era="survey")
    by_provenance = dict(in_survey.values_list("provenance").annotate(n=Count("pk")).order_by())
    assert by_provenance == {
        "survey-reference-list": 269,
        "reference-list-note": 600,
        "citing-paper-bibliography": 79,
        "secondary-index": 1,
    }
    among = Citation.objects.among_references()
    assert among.values("citing", "cited").distinct().count() == 672
    assert not among.filter(evidence_source="", evidence_excerpt="").exists()
    touched = set(among.values_list("citing", flat=True)) | set(
        among.values_list("cited", flat=True)
    )
    assert len(touched) == 140


@pytest.mark.django_db
@pytest.mark.skipif(not SEED.exists(), reason="the seed page is in ../shared")
@pytest.mark.parametrize("number", [1, 5, 26, 93, 136, 143, 198, 203, 258, 269])
def test_it_matches_the_seed_titles_and_years(survey, number):
    line = re.search(rf"^\s*{number}\. (.*)$", SEED.read_text(encoding="utf-8"), re.MULTILINE)
    work = Work.objects.get(survey_ref=number)
    seed_text = line.group(1)
    assert f" {work.year}. " in seed_text
    assert display_text(work.title).rstrip(".?") in seed_text


@pytest.mark.django_db
def test_it_keeps_et_al_honest(survey):
    abadi = Work.objects.get(survey_ref=1)
    assert abadi.author_names == ["M. Abadi"] and abadi.authors_truncated
    alistarh = Work.objects.get(survey_ref=5)
    assert len(alistarh.author_names) == 5 and not alistarh.authors_truncated


@pytest.mark.django_db
def test_it_changes_nothing_when_run_twice(mlperf):
    # `mlperf`: the survey with the MLPerf rows, everything the command writes.
    before = catalogue_rows()
    call_command("load_survey", verbosity=0)
    assert catalogue_rows() == before


@pytest.mark.django_db
def test_it_writes_nothing_when_a_fixture_is_broken(tmp_path):
    fixtures = tmp_path / "fixtures"
    shutil.copytree(Path(settings.BASE_DIR) / "fixtures", fixtures)
    with (fixtures / "citations.csv").open("a", encoding="utf-8") as handle:
        handle.write("bennun2018demystifying,nosuchkey2099,curator,,\n")
    with pytest.raises(CommandError, match="Nothing was loaded"):
        call_command("load_survey", fixtures=fixtures)
    assert Work.objects.count() == 0
    assert Category.objects.count() == 0
