"""The README says exactly what each make command installs and runs, and every number it states
is the app's: read both sides and compare, so that neither can change alone."""

import re
from pathlib import Path

import django
import pytest
from django.conf import settings

from catalogue.constants import SURVEY_KEY
from catalogue.models import Work
from explorer.demos import DEMOS

ROOT = Path(settings.BASE_DIR)


def make_rules() -> dict[str, tuple[list[str], list[str]]]:
    """target -> (prerequisites, recipe lines), variables expanded."""
    text = (ROOT / "Makefile").read_text()
    variables = dict(re.findall(r"^(\w+) :?= (.+)$", text, re.MULTILINE))
    for _ in range(3):
        text = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], m[0]), text)
    rules = {}
    for match in re.finditer(r"^([^\s:#][^:=]*):(?!=)([^\n]*)\n((?:\t[^\n]*\n)*)", text, re.M):
        prerequisites = match[2].replace("|", " ").split()
        rules[match[1].strip()] = (prerequisites, match[3].strip().splitlines())
    return rules


def installed_by(target: str, rules) -> list[str]:
    """The requirements files a target installs, through its prerequisites."""
    prerequisites, recipe = rules.get(target, ([], []))
    files = [f for line in recipe for f in re.findall(r"-r (\S+)", line)]
    for prerequisite in prerequisites:
        files += installed_by(prerequisite, rules)
    return sorted(set(files))


def readme_row(command: str) -> str:
    readme = (ROOT / "README.md").read_text()
    return re.search(rf"^\| `{re.escape(command)}` \|(.+)$", readme, re.MULTILINE)[1]


def test_the_readme_says_what_make_run_installs_and_runs():
    rules = make_rules()
    installs, runs = readme_row("make run").split("|")[:2]
    assert installed_by("run", rules) == ["requirements.txt"]
    assert re.findall(r"`(requirements[\w-]*\.txt)`", installs) == ["requirements.txt"]
    commands = [line.split("manage.py ")[1].split()[0] for line in rules["run"][1]]
    assert commands == ["migrate", "load_survey", "serve"]
    assert re.findall(r"`manage\.py (\w+)`", runs) == commands


def test_the_readme_says_what_make_test_and_lint_install():
    rules = make_rules()
    for target in ("test", "lint"):
        assert installed_by(target, rules) == ["requirements-dev.txt"]
        installs = readme_row(f"make {target}").split("|")[0]
        assert re.findall(r"`(requirements[\w-]*\.txt)`", installs) == ["requirements-dev.txt"]


def readme_checks(client) -> list[tuple[str, tuple[str, ...]]]:
    """(pattern, what its groups must read) for every number the README states, each read from
    the app: the survey's record, the catalogue's counts, the demo registry, the served schema,
    the Makefile's defaults and the versions the project runs on."""
    survey = Work.objects.get(key=SURVEY_KEY)
    counts = Work.objects.era_counts()
    variables = dict(re.findall(r"^(\w+) \?= (.+)$", (ROOT / "Makefile").read_text(), re.M))
    python = (ROOT / ".python-version").read_text().strip()
    schema = client.get("/api/schema/?format=json").json()
    return [
        (r"\(arXiv (\S+), ACM", (survey.arxiv_id,)),
        (
            r"ACM Computing Surveys (\d+)\((\d+)\), (\d+)\)",
            (survey.volume, survey.number, str(survey.year)),
        ),
        (r"serve on http://([\d.]+):(\d+)/", (variables["HOST"], variables["PORT"])),
        (
            r"Python ([\d.]+) or newer \(Django ([\d.]+)\)",
            (python, ".".join(map(str, django.VERSION[:2]))),
        ),
        (r"the survey's (\d+) works", (str(counts["survey"]),)),
        (r"the (\d+) entries of its bibliography", (str(counts["references"]),)),
        (r"(\d+) works after it, counted apart", (str(counts["after"]),)),
        (r"(\d+) micro-demos", (str(len(DEMOS)),)),
        (r"`/api/schema/` \(version\s+([\d.]+)\)", (schema["info"]["version"],)),
    ]


@pytest.mark.django_db
def test_every_number_in_the_readme_is_read_from_the_app(client, survey):
    readme = (ROOT / "README.md").read_text()
    checked = set()
    for pattern, expected in readme_checks(client):
        found = re.search(pattern, readme)
        assert found, pattern
        assert found.groups() == expected, pattern
        checked |= {found.span(group) for group in range(1, len(expected) + 1)}
    # A number added to the README needs its check above (a digit inside a name, as in
    # db.sqlite3, is no number).
    numbers = {found.span() for found in re.finditer(r"(?<![\w.])\d+(?:\.\d+)*", readme)}
    assert sorted(readme[a:b] for a, b in numbers - checked) == []


def test_the_python_version_file_is_the_makefiles_minimum():
    python = (ROOT / ".python-version").read_text().strip()
    makefile = (ROOT / "Makefile").read_text()
    minimum = re.search(r"sys\.version_info >= \((\d+), (\d+)\)", makefile).groups()
    assert python == ".".join(minimum)
