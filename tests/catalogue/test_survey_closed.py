"""The survey is closed: no door adds a work to its era or moves one in or out of it, imports
match entries by identity and merge field by field, and an export imported back changes nothing.
Each door: the model, the admin form, the admin upload, the API, import_bibtex, import_citations."""

import io
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from catalogue import bibtex
from catalogue.models import Era, Work

REFERENCE_MANAGER = Path(__file__).with_name("data") / "reference_manager.bib"
INLINES = ["authorships", "assignments", "citations_out", "citations_in"]


def era_counts() -> dict[str, int]:
    return {era: Work.objects.filter(era=era).count() for era in Era.values}


def snapshot() -> list[tuple]:
    fields = ["key", "era", "title", "year", "doi", "arxiv_id", "url", "source_url", "pages"]
    rows = Work.objects.order_by("key").values_list(*fields, "curated_fields", "field_sources")
    return [tuple(str(value) for value in row) for row in rows]


@pytest.fixture
def curator_client(client, curator):
    client.force_login(curator)
    return client


@pytest.mark.django_db
def test_the_model_refuses_to_move_a_work_into_or_out_of_the_survey(survey):
    work = Work.objects.get(key="deng2012scalable")
    work.era = Era.CURATED
    work.survey_ref = None
    with pytest.raises(ValidationError, match="cannot be moved out of it"):
        work.save()
    later = Work.objects.get(key="huang2019gpipe")
    later.era = Era.SURVEY
    with pytest.raises(ValidationError, match="cannot be moved into it"):
        later.save()
    assert era_counts()[Era.SURVEY] == 270


@pytest.mark.django_db
def test_the_admin_form_adds_no_work_to_the_survey_and_moves_none(survey, curator_client):
    data = {
        "key": "mine2024",
        "entry_type": "misc",
        "title": "Mine",
        "era": "survey",
        "source_url": "",
        "field_sources": "{}",
        "extra_fields": "{}",
        **{f"{prefix}-TOTAL_FORMS": "0" for prefix in INLINES},
        **{f"{prefix}-INITIAL_FORMS": "0" for prefix in INLINES},
    }
    response = curator_client.post("/admin/catalogue/work/add/", data)
    assert response.status_code == 200
    assert "The survey is closed" in response.context["adminform"].form.errors["era"][0]
    data["era"] = "curated"
    assert curator_client.post("/admin/catalogue/work/add/", data).status_code == 302
    assert Work.objects.get(key="mine2024").era == "curated"
    assert era_counts()[Era.SURVEY] == 270


@pytest.mark.django_db
def test_the_api_writes_no_work(survey, curator_client):
    response = curator_client.patch(
        "/api/works/deng2012scalable/", {"era": "curated"}, content_type="application/json"
    )
    assert response.status_code == 405
    assert Work.objects.get(key="deng2012scalable").era == "survey"


@pytest.mark.django_db
def test_import_citations_adds_no_work(survey, tmp_path):
    path = tmp_path / "edges.csv"
    path.write_text(
        "citing,cited,provenance,evidence_source,evidence_excerpt\n"
        "nobody2030,deng2012scalable,curator,https://example.org,line\n",
        encoding="utf-8",
    )
    with pytest.raises(CommandError):
        call_command("import_citations", str(path), stdout=io.StringIO())
    assert era_counts() == {"survey": 270, "after": 106, "curated": 0}


@pytest.mark.django_db
def test_a_reference_manager_export_leaves_the_survey_as_it_is(survey):
    before = snapshot()
    out = io.StringIO()
    call_command("import_bibtex", str(REFERENCE_MANAGER), stdout=out)
    report = out.getvalue()
    counts = era_counts()
    assert counts[Era.SURVEY] == 270 and counts[Era.AFTER] == 106
    assert counts[Era.CURATED] == report.count("\nnew (added by curators)") + report.startswith(
        "new (added by curators)"
    )
    assert counts[Era.CURATED] >= 2
    # Works already in the catalogue, under their keys or others, are as they were.
    unchanged_keys = {row[0] for row in before}
    after = [row for row in snapshot() if row[0] in unchanged_keys]
    assert after == before
    assert "same work: entry 'Huang2018' (line" in report
    assert "same work as huang2019gpipe (by arXiv id 1811.06965)" in report
    assert "same work as shoeybi2019megatron" in report
    assert "differs (not written without --update)" in report


@pytest.mark.django_db
def test_update_writes_the_differences_but_never_the_era_source_or_survey_ref(survey):
    gpipe = Work.objects.get(key="huang2019gpipe")
    era, source_url, sources = gpipe.era, gpipe.source_url, gpipe.field_sources
    call_command("import_bibtex", str(REFERENCE_MANAGER), "--update", stdout=io.StringIO())
    gpipe.refresh_from_db()
    assert (gpipe.era, gpipe.source_url, gpipe.field_sources) == (era, source_url, sources)
    assert era_counts()[Era.SURVEY] == 270
    assert Work.objects.filter(key="Huang2018").count() == 0


@pytest.mark.django_db
def test_a_field_the_file_leaves_out_never_erases_a_stored_one(survey):
    work = Work.objects.get(key="huang2019gpipe")
    text = f"@inproceedings{{huang2019gpipe, title = {{{work.title}}}, year = {{2019}}}}\n"
    plan = bibtex.plan_import(text)
    assert plan.ok and not plan.update and len(plan.unchanged) == 1
    bibtex.apply_import(plan, accepted=True)
    work.refresh_from_db()
    assert work.source_url and work.arxiv_id == "1811.06965"


@pytest.mark.django_db
def test_the_whole_export_and_any_part_of_it_import_back_unchanged(survey, tmp_path):
    before = snapshot()
    path = tmp_path / "all.bib"
    call_command("export_bibtex", "--output", str(path))
    text = path.read_text(encoding="utf-8")
    plan = bibtex.plan_import(text)
    assert plan.ok, plan.errors[:3]
    assert not plan.create and not plan.update and not plan.same_work
    assert len(plan.unchanged) == 376
    call_command("import_bibtex", str(path), "--update", stdout=io.StringIO())
    entries = text.split("\n@")
    part = tmp_path / "part.bib"
    part.write_text("\n@".join(entries[100:140]) if entries[100:] else text, encoding="utf-8")
    if not part.read_text().startswith("@"):
        part.write_text("@" + part.read_text(), encoding="utf-8")
    call_command("import_bibtex", str(part), "--update", stdout=io.StringIO())
    assert snapshot() == before


@pytest.mark.django_db
def test_the_admin_upload_writes_only_the_ticked_differences(survey, curator_client):
    text = REFERENCE_MANAGER.read_bytes()
    upload = SimpleUploadedFile("export.bib", text, content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    content = preview.content.decode()
    assert "The survey is closed" in content and "same work as huang2019gpipe" in content
    plan = preview.context["plan"]
    [first, *_] = [(u.key, name) for u in plan.update for name in u.changes]
    confirm = curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": preview.context["digest"], "apply": f"{first[0]} {first[1]}"},
    )
    assert confirm.status_code == 302
    work = Work.objects.get(key=first[0])
    assert work.curated_fields == [first[1]]
    assert era_counts()[Era.SURVEY] == 270
