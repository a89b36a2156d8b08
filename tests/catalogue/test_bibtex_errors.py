"""A BibTeX importer that never crashes: each malformed file is reported with its line and a
plain reason, in the command (non-zero exit) and the admin preview, and nothing is written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from catalogue import bibtex
from catalogue.models import Work

VALID = """% two works
@article{smith2017deep,
  author = {J. Smith and A. Jones},
  title = {Deep {GPU} Things},
  journal = {Journal of Things},
  pages = {1709--1720},
  year = {2017},
  month = aug
}

@inproceedings{lee2018fast,
  author = "K. Lee",
  title = "Fast Training",
  booktitle = {Proc. Conf.},
  year = 2018
}
"""

# (file, the exact messages the importer gives)
MALFORMED = {
    "unclosed brace": (
        "@article{a1,\n  title = {Deep {Things},\n  year = {2017}\n}\n\n"
        "@article{b2,\n  title = {Other},\n  year = {2018}\n}\n",
        [
            "line 2: unclosed brace: a '}' is missing in the title field of entry 'a1' "
            "(its value runs on to line 4 and takes in the fields after it)"
        ],
    ),
    "unclosed brace at the end": (
        "@article{a1,\n  year = {2017},\n  title = {Deep Things\n",
        [
            "line 3: unclosed brace: the '{' that opens the title field of entry 'a1' "
            "is never closed"
        ],
    ),
    "unclosed quote": (
        '@article{a1,\n  title = "Deep Things,\n  year = {2017}\n}\n',
        [
            "line 2: unclosed quote: the '\"' that opens the title field of entry 'a1' "
            "is never closed"
        ],
    ),
    "missing comma": (
        "@article{a1,\n  title = {Deep Things}\n  year = {2017}\n}\n",
        ["line 3: in entry 'a1': missing comma after the title field (found 'year')"],
    ),
    "missing key": (
        "@article{\n  title = {Deep Things},\n  year = {2017}\n}\n",
        ["line 1: the @article entry has no key (write @article{key, ...})"],
    ),
    "unclosed entry": (
        "@article{a1,\n  title = {Deep Things},\n  year = {2017}\n",
        ["line 1: entry 'a1' is not closed: a '}' is missing"],
    ),
    "unknown entry type": (
        "@artcle{a1,\n  title = {Deep Things}\n}\n",
        [
            "line 1: unknown entry type @artcle (known: article, book, booklet, collection, "
            "conference, dataset, electronic, inbook, incollection, inproceedings, manual, "
            "mastersthesis, misc, online, patent, phdthesis, proceedings, report, software, "
            "techreport, thesis, unpublished, www)"
        ],
    ),
    "stray text": (
        "@article{a1,\n  title = {Deep Things}\n}\nsee above }\n",
        [
            "line 4: text outside any entry: 'see above }' (an entry starts with @type{key, and "
            "a comment line with %); is this a BibTeX file?"
        ],
    ),
    "empty file": ("  \n\n", ["line 1: the file is empty"]),
    "only comments": (
        "% nothing here\n",
        ["line 1: no BibTeX entry in the file (an entry starts with @type{key,)"],
    ),
    "plain text": (
        "Dear curator,\nplease find the references below.\n",
        [
            "line 1: text outside any entry: 'Dear curator,' (an entry starts with @type{key, and "
            "a comment line with %); is this a BibTeX file?"
        ],
    ),
    "two mistakes": (
        "@article{a1,\n  title = {One}\n  year = {2017}\n}\n\n@article{,\n  title = {Two}\n}\n",
        [
            "line 3: in entry 'a1': missing comma after the title field (found 'year')",
            "line 6: the @article entry has no key (write @article{key, ...})",
        ],
    ),
}
NOT_UTF8 = "@article{a1,\n  title = {Caf\u00e9}\n}\n".encode("latin-1")
NOT_UTF8_MESSAGE = (
    "line 2: the file is not UTF-8 text (byte 0xe9 cannot be read); save it as UTF-8 and try again"
)


def test_it_reads_the_valid_file():
    parsed = bibtex.parse_bibtex(VALID)
    assert parsed.errors == []
    assert [(r.key, r.title, r.pages, r.year) for r in parsed.records] == [
        ("smith2017deep", "Deep {GPU} Things", "1709--1720", 2017),
        ("lee2018fast", "Fast Training", "", 2018),
    ]


@pytest.mark.parametrize("case", MALFORMED)
def test_it_names_each_mistake_with_its_line(case):
    text, messages = MALFORMED[case]
    parsed = bibtex.parse_bibtex(text)
    assert parsed.errors == messages
    # An entry that reads cleanly on its own is still read (the preview counts it; the
    # import writes nothing while the file has an error); a broken one never is.
    assert [r.key for r in parsed.records] == (["b2"] if case == "unclosed brace" else [])


def test_it_names_the_first_byte_that_is_not_utf8():
    with pytest.raises(bibtex.BibtexError) as error:
        bibtex.decode_bibtex(NOT_UTF8)
    assert str(error.value) == NOT_UTF8_MESSAGE


def test_it_reads_a_utf8_file_with_a_byte_order_mark():
    assert bibtex.decode_bibtex("\ufeff@misc{a,title={B}}".encode()) == "@misc{a,title={B}}"


@pytest.mark.django_db
@pytest.mark.parametrize("case", MALFORMED)
def test_the_command_reports_and_writes_nothing(tmp_path, case):
    text, messages = MALFORMED[case]
    path = tmp_path / "broken.bib"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as error:
        call_command("import_bibtex", str(path))
    assert error.value.returncode == 1
    assert str(error.value).splitlines()[1:] == [f"  - {message}" for message in messages]
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_the_command_reports_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.bib"
    path.write_bytes(NOT_UTF8)
    with pytest.raises(
        CommandError, match=NOT_UTF8_MESSAGE.replace("(", r"\(").replace(")", r"\)")
    ):
        call_command("import_bibtex", str(path))


def test_the_command_exits_non_zero(tmp_path):
    """As a shell sees it: exit status 1 and the reason on stderr (no database needed)."""
    path = tmp_path / "broken.bib"
    path.write_text(MALFORMED["missing comma"][0], encoding="utf-8")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    done = subprocess.run(
        [sys.executable, "manage.py", "import_bibtex", str(path), "--dry-run"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "line 3: in entry 'a1': missing comma after the title field" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def curator_client(client, curator):
    client.force_login(curator)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("case", MALFORMED)
def test_the_admin_preview_reports_and_offers_no_import(curator_client, case):
    text, messages = MALFORMED[case]
    upload = SimpleUploadedFile("broken.bib", text.encode(), content_type="text/plain")
    response = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert response.status_code == 200
    assert response.context["plan"].errors == messages
    assert b"Import these changes" not in response.content
    confirm = curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": response.context["digest"]},
    )
    assert confirm.status_code == 302
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_the_admin_preview_reports_a_file_that_is_not_utf8(curator_client):
    upload = SimpleUploadedFile("latin1.bib", NOT_UTF8, content_type="text/plain")
    response = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert response.status_code == 200
    assert response.context["form"].errors == {"file": [NOT_UTF8_MESSAGE]}


# --- Property: whatever a typo does to a valid file, the importer imports or reports ----------


@st.composite
def mutated(draw) -> str:
    """VALID with a few characters deleted or inserted, then perhaps truncated."""
    text = VALID
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(text)))
        if draw(st.booleans()) and position < len(text):
            text = text[:position] + text[position + 1 :]
        else:
            inserted = draw(st.sampled_from(list('{}",=@#%\n ')) | st.characters())
            text = text[:position] + inserted + text[position:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


@given(mutated())
@hypothesis_settings(max_examples=300, deadline=None, derandomize=True)
def test_parsing_a_mutated_file_imports_or_reports(text):
    parsed = bibtex.parse_bibtex(text)
    assert parsed.records or parsed.errors
    assert all(message.startswith(("line ", "entry ", "block ")) for message in parsed.errors)


@pytest.mark.django_db
@given(mutated())
@hypothesis_settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_importing_a_mutated_file_imports_or_reports(text):
    plan = bibtex.plan_import(text)
    if plan.ok:
        bibtex.apply_import(plan)  # inside the test's transaction: must not raise either
        assert Work.objects.filter(key__in=[r.key for r in plan.create]).count() == len(plan.create)
    else:
        with pytest.raises(bibtex.BibtexError):
            bibtex.apply_import(plan)
    Work.objects.all().delete()


def test_the_survey_file_has_no_syntax_problem():
    text = (Path(settings.BASE_DIR) / "fixtures" / "survey.bib").read_text(encoding="utf-8")
    assert bibtex.parse_bibtex(text).errors == []
