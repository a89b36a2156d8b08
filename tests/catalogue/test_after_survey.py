"""The works after the survey: loaded with their sources, mapped with a reason, edges with evidence,
and the survey's own figures untouched."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count

from catalogue.models import Assignment, Category, Citation, Era, Evidence, Work

EXTENSIONS = {
    "after-net-sharded-dp": ("net-data", "6.1"),
    "after-net-tensor": ("net-model", "6.2"),
    "after-net-sequence": ("net-model", "6.2"),
    "after-net-expert": ("net-model", "6.2"),
    "after-net-auto": ("net-hybrid", "6.4"),
}


@pytest.mark.django_db
def test_it_loads_at_least_40_works_after_the_survey_each_with_its_sources(survey):
    after = list(Work.objects.after_survey())
    assert len(after) == 106
    for work in after:
        assert work.source_url.startswith(("https://", "http://")), work.key
        assert work.survey_ref is None and 2018 <= work.year <= 2025, work.key
        for name in ("title", "authors", "year"):
            assert work.field_sources[name].startswith(("https://", "http://")), (work.key, name)
        for name, value in (("venue", work.venue), ("arxiv", work.arxiv_id), ("doi", work.doi)):
            assert bool(value) == (name in work.field_sources), (work.key, name)
    gpipe = Work.objects.get(key="huang2019gpipe")
    assert (gpipe.era, gpipe.year, gpipe.arxiv_id, gpipe.venue) == (
        "after",
        2019,
        "1811.06965",
        "NeurIPS",
    )
    # The page its title was read on: the authors' Lingvo publication list, at a commit.
    assert gpipe.source_url == (
        "https://github.com/tensorflow/lingvo/blob/e0be5dc4ce9b89d91c0be343f54c5d7a5b1bcb59/"
        "PUBLICATIONS.md"
    )
    assert gpipe.field_sources["venue"] == (
        "http://research.google/pubs/gpipe-efficient-training-of-giant-neural-networks-using-"
        "pipeline-parallelism"
    )


@pytest.mark.django_db
def test_it_keeps_the_survey_figures_under_the_survey_era(survey):
    assert Work.objects.in_era("survey").count() == 270
    assert Work.objects.in_era("survey").references().count() == 269
    assert Work.objects.in_era("all").count() == 270 + 106
    among = Citation.objects.among_references()
    assert (among.count(), among.values("citing", "cited").distinct().count()) == (680, 672)
    evidence = dict(
        Assignment.objects.filter(work__era="survey")
        .values_list("evidence")
        .annotate(n=Count("pk"))
        .order_by()
    )
    assert evidence == {"confirmed": 39, "partial": 33, "topic-inferred": 260}
    assert Citation.objects.filter(provenance="survey-reference-list").count() == 269


@pytest.mark.django_db
def test_it_maps_every_later_work_with_the_curated_level_and_a_reason(survey):
    after = Assignment.objects.filter(work__era="after")
    assert after.count() == 141
    assert set(after.values_list("evidence", flat=True)) == {Evidence.CURATED_AFTER}
    assert not after.filter(source_note="").exists()
    assert not Work.objects.after_survey().annotate(n=Count("assignments")).filter(n=0).exists()
    assert not Assignment.objects.filter(
        work__era="survey", evidence="curated-after-survey"
    ).exists()
    megatron = Assignment.objects.get(work__key="shoeybi2019megatron")
    assert megatron.category.code == "after-net-tensor"
    assert megatron.source_note.startswith("Intra-layer (tensor) model parallelism")


@pytest.mark.django_db
def test_it_adds_categories_only_as_extensions_of_survey_sections(survey):
    added = {
        c.code: (c.parent.code, c.extends, c.section) for c in Category.objects.exclude(extends="")
    }
    assert added == {code: (parent, extends, "") for code, (parent, extends) in EXTENSIONS.items()}
    assert str(Category.objects.get(code="after-net-tensor")) == (
        "Tensor (intra-layer) parallelism (after the survey, extends §6.2)"
    )
    assert [c.code for c in Category.objects.top_level()] == ["ops", "net", "train", "bg"]


@pytest.mark.django_db
def test_it_loads_edges_of_later_works_only_with_their_evidence(survey):
    edges = Citation.objects.touching_after_survey().select_related("citing", "cited")
    # Issue 45: only the citing papers' own lists; the projects' credit lists and READMEs and
    # the readers' notes (no citing paper's list readable) are withdrawn.
    assert edges.count() == 0
    assert not Citation.objects.filter(citing__key="shazeer2018mesh").exists()
    assert not Citation.objects.filter(citing__key="li2023colossalai").exists()


@pytest.mark.django_db
def test_it_refuses_a_later_work_without_a_source_url(db):
    work = Work(key="late2020", title="Late", year=2020, era=Era.AFTER)
    with pytest.raises(ValidationError) as error:
        work.full_clean()
    assert "source_url" in error.value.message_dict
    with pytest.raises(IntegrityError), transaction.atomic():
        work.save()
    work.source_url = "https://example.org/late"
    work.full_clean()
    work.save()


@pytest.mark.django_db
def test_it_keeps_the_curated_level_for_later_works_and_asks_a_reason(db):
    category = Category.objects.create(code="net-pipe", name="Pipelining")
    later = Work.objects.create(
        key="late2020", title="Late", era=Era.AFTER, source_url="https://example.org/late"
    )
    earlier = Work.objects.create(key="early2015", title="Early", survey_ref=1)
    with pytest.raises(ValidationError, match="curated after the survey"):
        Assignment(work=later, category=category, evidence="confirmed").full_clean()
    with pytest.raises(ValidationError, match="only for works after the survey"):
        Assignment(work=earlier, category=category, evidence="curated-after-survey").full_clean()
    with pytest.raises(ValidationError, match="reason"):
        Assignment(work=later, category=category, evidence="curated-after-survey").full_clean()
    Assignment(
        work=later, category=category, evidence="curated-after-survey", source_note="Extends 6.3."
    ).full_clean()
