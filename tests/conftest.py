import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction

from catalogue.graph import bump_generation
from tests.helpers import clear_caches


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache: no response, graph or throttle count carries over."""
    clear_caches()
    yield
    clear_caches()


def catalogue_models() -> list:
    """The catalogue's tables, the many-to-many ones included, parents before children."""
    return list(apps.get_app_config("catalogue").get_models(include_auto_created=True))


@pytest.fixture(scope="session")
def survey_rows(django_db_setup, django_db_blocker) -> list[tuple[type, list[dict]]]:
    """The rows the real `load_survey` command writes, loaded once per session (about a second)
    in a transaction that is then rolled back, so that tests without the survey start empty."""
    tables = catalogue_models()
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_survey", verbosity=0)
        rows = [(model, list(model.objects.order_by("pk").values())) for model in tables]
        transaction.set_rollback(True)
    return rows


@pytest.fixture
def survey(db, survey_rows):
    """The whole survey, as the real command loads it: copied from the session's rows (a few
    bulk inserts instead of a second of parsing), inside the test's transaction."""
    for model, rows in survey_rows:
        model.objects.bulk_create(model(**row) for row in rows)
    with connection.cursor() as cursor:  # PostgreSQL: ids continue after the copied ones
        for statement in connection.ops.sequence_reset_sql(no_style(), catalogue_models()):
            cursor.execute(statement)
    bump_generation()


@pytest.fixture
def curator(db, django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(
        "curator", password="a-long-test-password", is_staff=True
    )
    user.groups.add(Group.objects.get(name="curators"))
    return user
