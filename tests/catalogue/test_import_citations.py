"""`manage.py import_citations`: all rows or none, each bad row named by its line."""

import pytest
from django.core.management import CommandError, call_command

from catalogue import graph_store
from catalogue.models import Citation
from tests.helpers import clear_caches, make_citation, make_work

HEADER = "citing,cited,provenance,evidence_source,evidence_excerpt\n"


@pytest.fixture(autouse=True)
def empty_cache():
    clear_caches()


@pytest.fixture
def works(db):
    return {key: make_work(key, title=key.title()) for key in ("alpha", "beta", "gamma")}


def write_csv(tmp_path, body: str, header: str = HEADER):
    path = tmp_path / "edges.csv"
    path.write_text(header + body, encoding="utf-8")
    return path


def import_error(path) -> str:
    with pytest.raises(CommandError) as error:
        call_command("import_citations", str(path))
    return str(error.value)


def test_it_adds_every_edge_of_a_clean_file(works, tmp_path, capsys):
    path = write_csv(
        tmp_path,
        "alpha,beta,citing-paper-bibliography,alpha.pdf p. 9,[3] Beta\n"
        "alpha,gamma,curator,https://example.org/gamma,\n"
        'beta,gamma,reference-list-note,,"[1] Gamma, a title with a comma"\n',
    )
    call_command("import_citations", str(path))
    assert "Added 3 citation edges." in capsys.readouterr().out
    rows = Citation.objects.order_by("pk").values_list(
        "citing__key", "cited__key", "provenance", "evidence_source", "evidence_excerpt"
    )
    assert list(rows) == [
        ("alpha", "beta", "citing-paper-bibliography", "alpha.pdf p. 9", "[3] Beta"),
        ("alpha", "gamma", "curator", "https://example.org/gamma", ""),
        ("beta", "gamma", "reference-list-note", "", "[1] Gamma, a title with a comma"),
    ]


def test_it_writes_nothing_and_names_each_bad_row(works, tmp_path):
    make_citation(works["beta"], works["gamma"], provenance="curator")
    path = write_csv(
        tmp_path,
        "alpha,beta,curator,ok,\n"  # line 2: fine on its own
        "alpha,nobody,curator,src,\n"  # 3: unknown cited key
        "ghost,alpha,curator,src,\n"  # 4: unknown citing key
        "alpha,alpha,curator,src,\n"  # 5: self-citation
        "alpha,gamma,hearsay,src,\n"  # 6: unknown provenance
        "gamma,alpha,curator,,\n"  # 7: no evidence
        "alpha,beta,curator,again,\n"  # 8: duplicates line 2
        "beta,gamma,curator,src,\n"  # 9: already in the catalogue
        "gamma,beta,curator,src,extra,field\n",  # 10: too many fields
    )
    message = import_error(path)
    assert message.splitlines() == [
        "edges.csv: 8 bad row(s); nothing was imported.",
        "line 3: unknown cited work key 'nobody'",
        "line 4: unknown citing work key 'ghost'",
        "line 5: a work cannot cite itself",
        "line 6: unknown provenance 'hearsay' (one of: survey-reference-list, "
        "citing-paper-bibliography, reference-list-note, secondary-index, curator)",
        "line 7: no evidence: give evidence_source, evidence_excerpt or both",
        "line 8: duplicates line 2",
        "line 9: this edge (citing, cited, provenance) is already in the catalogue",
        "line 10: more fields than the header has columns",
    ]
    assert Citation.objects.count() == 1


def test_it_refuses_a_nul_byte_in_a_field(works, tmp_path):
    # PostgreSQL refuses NUL in a text column: caught before anything is written.
    path = write_csv(tmp_path, "alpha,beta,curator,ok,\nalpha,gamma,curator,a\x00b,\n")
    assert import_error(path).splitlines()[1:] == ["line 3: a NUL byte in a field (a binary file?)"]
    assert not Citation.objects.exists()


def test_it_counts_lines_of_quoted_multi_line_fields(works, tmp_path):
    path = write_csv(tmp_path, 'alpha,beta,curator,,"two\nlines"\nalpha,alpha,curator,src,\n')
    assert import_error(path).splitlines()[1:] == ["line 4: a work cannot cite itself"]


def test_it_refuses_a_file_without_the_columns(works, tmp_path):
    path = write_csv(tmp_path, "alpha,beta,curator\n", header="citing,cited,provenance\n")
    assert import_error(path) == (
        "edges.csv: the header must name the columns citing, cited, provenance, "
        "evidence_source, evidence_excerpt (missing: evidence_source, evidence_excerpt). "
        "Nothing was imported."
    )


def test_it_refuses_a_missing_file(works, tmp_path):
    assert "cannot be read" in import_error(tmp_path / "missing.csv")


def test_it_invalidates_the_cached_graph(works, tmp_path):
    before = graph_store.catalogue_graph()
    call_command("import_citations", str(write_csv(tmp_path, "alpha,beta,curator,src,\n")))
    after = graph_store.catalogue_graph()
    assert after.version != before.version
    assert after.graph.has_edge("alpha", "beta")


def test_it_reads_back_the_csv_export_of_the_graph_api(works, tmp_path, client):
    make_citation(works["alpha"], works["beta"])
    exported = client.get("/api/graph/?format=csv").content.decode()
    Citation.objects.all().delete()
    path = tmp_path / "export.csv"
    path.write_text(exported, encoding="utf-8")
    call_command("import_citations", str(path))
    assert list(Citation.objects.values_list("citing__key", "cited__key", "provenance")) == [
        ("alpha", "beta", "citing-paper-bibliography")
    ]
