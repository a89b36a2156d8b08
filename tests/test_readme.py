"""The README says exactly what each make command installs and runs: read both files and
compare, so that neither can change alone."""

import re
from pathlib import Path

from django.conf import settings

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
