"""Backup and restore: dumpdata, an emptied catalogue, loaddata gives the same catalogue back."""

import io

import pytest
from django.core.management import call_command

from catalogue.models import Author, Category, Person, Result, Technique, Work


def dump() -> str:
    out = io.StringIO()
    call_command("dumpdata", "catalogue", "--indent=1", stdout=out)
    return out.getvalue()


def empty_the_catalogue() -> None:
    Result.objects.all().delete()  # the measured results (those of works outside the catalogue too)
    Work.objects.all().delete()  # with authorships, assignments and citations
    Author.objects.all().delete()
    Person.objects.all().delete()  # the identity table
    Technique.objects.all().delete()  # with cost models
    while Category.objects.exists():  # leaves first: parents are protected
        Category.objects.filter(children__isnull=True).delete()


@pytest.mark.django_db
def test_it_restores_the_catalogue_identically(survey, tmp_path):
    backup = tmp_path / "catalogue.json"
    before = dump()
    backup.write_text(before, encoding="utf-8")
    empty_the_catalogue()
    assert dump().split() == ["[", "]"]

    call_command("loaddata", str(backup), verbosity=0)
    assert dump() == before
