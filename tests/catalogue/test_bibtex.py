"""BibTeX in and out: parsing, round trips, and atomic imports."""

import bibtexparser
import pytest
from django.core.management import CommandError, call_command

from catalogue import bibtex
from catalogue.models import Work

ACCENTED = r"""@inproceedings{muller2017uber,
  author = {D. M{\"u}ller and J. Ser{\'e} and others},
  title = {The {\"U}ber {GPU}: {Winograd} at {S}cale},
  booktitle = {Proc. {IEEE} Int'l Conf.},
  pages = {1--10},
  year = {2017},
  eprint = {1704.05021},
  archiveprefix = {arXiv},
  surveyref = {3},
  month = {aug}
}
"""

# The same entry as a reference manager exports it: no surveyref, no era (a new work is then
# added by curators: the survey is closed).
IMPORTED = ACCENTED.replace("  surveyref = {3},\n", "")

BROKEN = r"""@article{good2017, title = {Fine}, year = {2017}}
@article{badyear, title = {Bad year}, year = {20x7}}
@article{notitle, year = {2016}}
@article{good2017, title = {Again}, year = {2017}}
"""


def make_work(key="existing2016", **fields):
    defaults = {"title": "Existing", "year": 2016, "entry_type": "article"}
    return Work.objects.create(key=key, **{**defaults, **fields})


def test_it_splits_authors_and_flags_et_al():
    assert bibtex.split_authors("A. Agarwal and J. C. Duchi") == (
        ["A. Agarwal", "J. C. Duchi"],
        False,
    )
    assert bibtex.split_authors("M. Abadi and others") == (["M. Abadi"], True)


def test_it_does_not_split_authors_inside_braces():
    names, truncated = bibtex.split_authors("{Barnes and Noble} and B. Author")
    assert names == ["{Barnes and Noble}", "B. Author"]
    assert not truncated


def test_it_reads_every_field_of_an_entry():
    [record] = bibtex.parse_bibtex(ACCENTED).records
    assert record.key == "muller2017uber"
    assert record.entry_type == "inproceedings"
    assert record.title == r"The {\"U}ber {GPU}: {Winograd} at {S}cale"
    assert record.authors == [r"D. M{\"u}ller", r"J. Ser{\'e}"]
    assert record.authors_truncated
    assert record.year == 2017
    assert record.arxiv_id == "1704.05021"
    assert record.survey_ref == 3
    assert record.pages == "1--10"
    assert record.venue == r"Proc. {IEEE} Int'l Conf."
    assert record.extra_fields == {"month": "aug"}


def test_it_keeps_latex_and_braces_through_export_import_export():
    first = bibtex.write_bibtex(bibtex.parse_bibtex(ACCENTED).records)
    second = bibtex.write_bibtex(bibtex.parse_bibtex(first).records)
    assert first == second
    assert r"M{\"u}ller" in first and "{GPU}" in first


def test_it_decodes_latex_for_display():
    assert bibtex.display_text(r"The {\"U}ber {GPU}") == "The Über GPU"
    assert bibtex.display_text("Plain title") == "Plain title"


def test_it_names_each_bad_entry_with_its_line():
    parsed = bibtex.parse_bibtex(BROKEN)
    assert [r.key for r in parsed.records] == ["good2017"]
    assert len(parsed.errors) == 3
    assert any("'badyear' (line 2)" in e and "four-digit year" in e for e in parsed.errors)
    assert any("'notitle' (line 3)" in e and "no title" in e for e in parsed.errors)
    assert any("'good2017' (line 4)" in e and "duplicate key" in e for e in parsed.errors)


@pytest.mark.django_db
def test_it_refuses_a_file_with_a_nul_byte(tmp_path):
    # PostgreSQL refuses NUL in a text column: caught before anything is written.
    path = tmp_path / "binary.bib"
    path.write_text("@article{a2017, title = {Fine}, year = {2017}}\n@article{b2017,\x00}\n")
    with pytest.raises(CommandError) as raised:
        call_command("import_bibtex", str(path))
    assert "line 2: a NUL byte" in str(raised.value)
    assert Work.objects.count() == 0


@pytest.mark.django_db
def test_it_imports_nothing_when_one_entry_is_bad(tmp_path):
    path = tmp_path / "broken.bib"
    path.write_text(BROKEN, encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command("import_bibtex", str(path))
    message = str(raised.value)
    assert "Nothing was imported" in message and "badyear" in message and "notitle" in message
    assert Work.objects.count() == 0


@pytest.mark.django_db
def test_it_imports_then_reports_nothing_new_on_a_second_run(tmp_path):
    path = tmp_path / "one.bib"
    path.write_text(IMPORTED, encoding="utf-8")
    call_command("import_bibtex", str(path))
    work = Work.objects.get(key="muller2017uber")
    assert work.author_names == [r"D. M{\"u}ller", r"J. Ser{\'e}"]
    assert work.authors_truncated and work.era == "curated"
    plan = bibtex.plan_import(IMPORTED)
    assert (len(plan.create), len(plan.update), len(plan.unchanged)) == (0, 0, 1)


@pytest.mark.django_db
def test_it_dry_run_writes_nothing(tmp_path, capsys):
    path = tmp_path / "one.bib"
    path.write_text(IMPORTED, encoding="utf-8")
    call_command("import_bibtex", str(path), "--dry-run")
    assert "Dry run, nothing written: 1 new" in capsys.readouterr().out
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_it_refuses_to_add_a_work_to_the_survey():
    plan = bibtex.plan_import(ACCENTED)  # surveyref = {3}: a claim on the closed survey
    assert not plan.ok and not plan.create
    [error] = plan.errors
    assert error.startswith("entry 'muller2017uber' (line 1): the survey is closed")


@pytest.mark.django_db
def test_it_matches_an_entry_under_another_key_by_arxiv_id_and_never_doubles_it():
    make_work(key="theirs2017", arxiv_id="1704.05021")
    plan = bibtex.plan_import(IMPORTED)
    assert plan.ok and not plan.create
    assert plan.same_work == [
        "entry 'muller2017uber' (line 1): same work as theirs2017 (by arXiv id 1704.05021)"
    ]
    bibtex.apply_import(plan, accepted=True)
    assert Work.objects.count() == 1


@pytest.mark.django_db
def test_it_previews_the_fields_an_update_changes():
    make_work(key="muller2017uber", title="Old title", year=2017, entry_type="inproceedings")
    plan = bibtex.plan_import(IMPORTED)
    [update] = plan.update
    assert update.changes["title"] == ("Old title", r"The {\"U}ber {GPU}: {Winograd} at {S}cale")
    assert "year" not in update.changes


@pytest.mark.django_db
def test_it_exports_what_it_imported(tmp_path, capsys):
    path = tmp_path / "one.bib"
    path.write_text(IMPORTED, encoding="utf-8")
    call_command("import_bibtex", str(path))
    capsys.readouterr()
    call_command("export_bibtex")
    exported = capsys.readouterr().out
    [record] = bibtex.parse_bibtex(IMPORTED).records
    record.era = "curated"  # what the import made of an entry without era
    assert exported == bibtex.write_bibtex([record])


AFTER = """@inproceedings{huang2019gpipe,
  author = {Yanping Huang and Youlong Cheng},
  title = {{GPipe}},
  booktitle = {NeurIPS},
  year = {2019},
  era = {after},
  sourceurl = {https://scholar.archive.org/work/kntf5h3kifhdfdcbkpwikttbaa}
}
"""


def test_it_reads_the_era_and_source_url_and_writes_them_back():
    record = bibtex.parse_bibtex(AFTER).records[0]
    assert (record.era, record.source_url, record.extra_fields) == (
        "after",
        "https://scholar.archive.org/work/kntf5h3kifhdfdcbkpwikttbaa",
        {},
    )
    assert bibtex.write_bibtex([record]) == AFTER
    survey_entry = bibtex.parse_bibtex(ACCENTED).records[0]
    assert survey_entry.era == "" and "era" not in bibtex.write_bibtex([survey_entry])


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("era = {after}", "needs a sourceurl"),
        ("era = {later}, sourceurl = {https://example.org/}", "era 'later' is not one of"),
        ("era = {after}, sourceurl = {ftp://example.org/}", "is not an http(s) URL"),
        ("era = {after}, sourceurl = {https://example.org/}, surveyref = {3}", "cannot have a"),
    ],
)
def test_it_refuses_a_later_work_without_a_usable_source_url(fields, message):
    parsed = bibtex.parse_bibtex(f"@misc{{late2020, title = {{Late}}, year = {{2020}}, {fields}}}")
    assert parsed.records == []
    assert len(parsed.errors) == 1 and message in parsed.errors[0]
    assert parsed.errors[0].startswith("entry 'late2020' (line 1): ")


def bibtexparser_written(records: list) -> str:
    """The export as bibtexparser's own writer wrote it before catalogue.bibtex wrote it."""
    from bibtexparser.middlewares.parsestack import default_unparse_stack
    from bibtexparser.model import Entry, Field

    entries = [
        Entry(r.entry_type, r.key, [Field(*pair) for pair in bibtex.entry_fields(r)])
        for r in records
    ]
    bibtex_format = bibtexparser.BibtexFormat()
    bibtex_format.indent = "  "
    bibtex_format.block_separator = "\n\n"
    text = bibtexparser.write_string(
        bibtexparser.Library(entries),
        unparse_stack=default_unparse_stack(),
        bibtex_format=bibtex_format,
    )
    return text.strip() + "\n"


def test_it_writes_what_bibtexparsers_writer_wrote(survey):
    records = [bibtex.record_from_work(w) for w in Work.objects.for_rows().order_by("key")]
    parsed = bibtex.parse_bibtex(ACCENTED + "\n" + AFTER).records
    for record in parsed:  # the survey has them: keys are unique in a file
        record.key += "x"
    records += parsed
    odd = bibtex.WorkRecord("odd2020", "misc", "A & B at 50% $x_1^2$ #1", year=2020)
    odd.extra_fields = {"note": "#1 of {3}", "keywords": "a_b"}
    odd.authors, odd.authors_truncated = ["A. One", "B. Two"], True
    records.append(odd)
    assert len(records) > 270
    assert bibtex.write_bibtex(records) == bibtexparser_written(records)
    assert bibtex.write_bibtex([]) == bibtexparser_written([]) == "\n"
