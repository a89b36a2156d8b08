"""Backup and restore: dumpdata, an emptied catalogue, loaddata gives the same catalogue back."""

import io

import pytest
from django.core.management import call_command
from django.db import connection

from tests.helpers import catalogue_models


def dump() -> str:
    out = io.StringIO()
    call_command("dumpdata", "catalogue", "--indent=1", stdout=out)
    return out.getvalue()


def empty_the_catalogue() -> None:
    """Every catalogue table emptied at once, as a restore onto a freshly migrated database finds
    them. Not through the ORM: its cascades refresh a work's search text once per deleted
    authorship or assignment, which took two thirds of this test (8 of 14 s on SQLite);
    deleting through the ORM is the admin's tests' concern."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for model in reversed(catalogue_models()):  # foreign keys: checked at the end
            cursor.execute(f"DELETE FROM {quote(model._meta.db_table)}")


@pytest.mark.django_db
def test_it_restores_the_catalogue_identically(survey, tmp_path):
    backup = tmp_path / "catalogue.json"
    before = dump()
    backup.write_text(before, encoding="utf-8")
    empty_the_catalogue()
    assert dump().split() == ["[", "]"]

    call_command("loaddata", str(backup), verbosity=0)
    assert dump() == before
