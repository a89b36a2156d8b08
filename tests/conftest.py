import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction

from catalogue.version import bump_generation
from tests.helpers import catalogue_models, clear_caches

# The longest tests first (the fuzzer's runs, then the browser tests), so that the test
# processes (pytest-xdist) share out the short ones at the end instead of one waiting alone on
# a 2.5-minute test. Order only: every test stays independent of the others.
SLOW_FIRST = ("tests/fuzz/", "tests/e2e/")


# What gives a test the database (pytest-django): these fixtures, or any fixture that depends
# on one of them (`survey`, `admin_client`...), appear in the test's fixture closure.
# `django_db_setup` is there for session fixtures that unblock the database themselves
# (`survey_rows`); not `django_db_blocker`, which pytest-django's autouse fixtures give every test.
# A test that asks for the database only at run time (request.getfixturevalue) is not seen: it
# runs on SQLite alone.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
        "django_db_setup",
        "_django_db_helper",
    }
)


def pytest_addoption(parser):
    parser.addoption(
        "--database-tests-only",
        action="store_true",
        help="run only the tests that use the database (a django_db mark or a database "
        "fixture): .ci/run's PostgreSQL pass; the others ran on SQLite already",
    )


def uses_database(item) -> bool:
    if item.get_closest_marker("django_db") is not None:
        return True
    return not DATABASE_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        path = str(item.fspath).replace("\\", "/")
        return next((i for i, part in enumerate(SLOW_FIRST) if part in path), len(SLOW_FIRST))

    items.sort(key=rank)  # stable: the order within each group stays the collection's
    if config.getoption("--database-tests-only"):
        pure = [item for item in items if not uses_database(item)]
        if pure:
            config.hook.pytest_deselected(items=pure)
            items[:] = [item for item in items if uses_database(item)]


def pytest_configure(config):
    """Test users' passwords hashed by a fast hasher: PBKDF2's deliberate slowness (about 0.3 s
    a password on this machine) protects nothing in a test database and cost every test that
    makes a curator. The deployed hashers stay as settings.py has them."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    # The live server's responses sent at once: Django's development server writes the status
    # line, the headers and the body in separate small writes, and with Nagle's algorithm each
    # one after the first waits for the client's delayed acknowledgement (40 ms on Linux), so a
    # fuzzer or a browser spent most of its time waiting, not testing.
    from django.core.servers import basehttp

    basehttp.WSGIRequestHandler.disable_nagle_algorithm = True


@pytest.fixture(autouse=True)
def demo_runs_in_the_request(settings):
    """Unit tests run a queued demo at once, inside the request (django.tasks' immediate
    backend); tests/demos/test_worker.py and the browser tests start real workers instead."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache: no response, graph or throttle count carries over."""
    clear_caches()
    yield
    clear_caches()


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


def is_mlperf(model) -> bool:
    return model._meta.model_name.startswith("mlperf")


TEMPLATE_PREFIX = "_survey_"


@pytest.fixture(scope="session")
def survey_templates(survey_rows, django_db_blocker) -> list[type]:
    """The survey's rows, written once per session into template tables beside the catalogue's
    (`_survey_<table>`, committed, unknown to Django: a flush leaves them alone), so that each
    test copies them with one `INSERT ... SELECT` per table inside the database, instead of
    sending 13,000 rows through the driver (0.07 s a test on SQLite and 0.2 s on PostgreSQL,
    issue 47). MLPerf's 25,000 rows have their own templates, for the `mlperf`
    fixture. Returns the catalogue tables, parents before children."""
    quote = connection.ops.quote_name
    with django_db_blocker.unblock(), transaction.atomic(), connection.cursor() as cursor:
        for model, rows in survey_rows:
            table = model._meta.db_table
            cursor.execute(
                f"CREATE TABLE {quote(TEMPLATE_PREFIX + table)} AS "
                f"SELECT {columns(model)} FROM {quote(table)} WHERE 1 = 0"
            )
            if rows:
                sql, params = insert(model, rows, TEMPLATE_PREFIX + table)
                cursor.executemany(sql, params)
    return [model for model, _ in survey_rows]


def columns(model) -> str:
    """The model's columns, quoted, in order: not `*`, which would take the columns that the
    database computes itself (PostgreSQL's search document, catalogue migration 0007)."""
    return ", ".join(connection.ops.quote_name(f.column) for f in model._meta.concrete_fields)


def insert(model, rows: list[dict], table: str) -> tuple[str, list[tuple]]:
    """One INSERT statement into `table` with the model's columns, and its parameters."""
    fields = model._meta.concrete_fields
    placeholders = ", ".join(["%s"] * len(fields))
    into = connection.ops.quote_name(table)
    sql = f"INSERT INTO {into} ({columns(model)}) VALUES ({placeholders})"
    params = [tuple(f.get_db_prep_save(row[f.attname], connection) for f in fields) for row in rows]
    return sql, params


def copy_survey(models: list) -> None:
    """Write the rows the real `load_survey` wrote, exactly as stored (timestamps included), from
    the template tables. In one transaction, since the rows reference each other (categories
    their parents): the foreign keys are checked at its end."""
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        for model in models:
            table = model._meta.db_table
            cursor.execute(
                f"INSERT INTO {quote(table)} ({columns(model)}) "
                f"SELECT {columns(model)} FROM {quote(TEMPLATE_PREFIX + table)}"
            )
    with connection.cursor() as cursor:  # PostgreSQL: ids continue after the copied ones
        for statement in connection.ops.sequence_reset_sql(no_style(), catalogue_models()):
            cursor.execute(statement)
    bump_generation()


@pytest.fixture
def survey(db, survey_templates):
    """The whole survey, as the real command loads it, inside the test's transaction; MLPerf's
    rounds, systems, runs and scores apart (the `mlperf` fixture)."""
    copy_survey([model for model in survey_templates if not is_mlperf(model)])


@pytest.fixture
def mlperf(survey, survey_templates):
    """The survey and every MLPerf Training round, system, run and score load_survey loads."""
    copy_survey([model for model in survey_templates if is_mlperf(model)])


@pytest.fixture
def committed_survey(transactional_db, survey_templates):
    """The whole survey, committed, for a live server or a worker process to read (the test
    database is emptied after the test)."""
    copy_survey([model for model in survey_templates if not is_mlperf(model)])


@pytest.fixture
def curator(db, django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user(
        "curator", password="a-long-test-password", is_staff=True
    )
    user.groups.add(Group.objects.get(name="curators"))
    return user


DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
LOST_AFTER = 3  # seconds without a heartbeat before a run's worker counts as lost, in tests


@pytest.fixture
def demo_workers(transactional_db, settings):
    """Starts real `manage.py demo_worker` processes on the test database (the database task
    backend, as deployed); call it to start one. Every worker is killed at the end."""
    import os
    import signal
    import subprocess
    import sys

    from django.conf import settings as django_settings

    from tests.helpers import database_url

    settings.TASKS = DATABASE_TASKS
    settings.DEMO_WORKER_LOST_AFTER = LOST_AFTER
    started: list[subprocess.Popen] = []
    env = os.environ | {
        "DATABASE_URL": database_url(),
        "DEMO_TASKS_BACKEND": "database",
        "DEMO_WORKER_LOST_AFTER": str(LOST_AFTER),
        "DEBUG": "true",
    }

    def start() -> subprocess.Popen:
        command = ["demo_worker", "--no-reload", "--no-startup-delay", "--interval", "0.1"]
        worker = subprocess.Popen(
            [sys.executable, "manage.py", *command, "--verbosity", "0"],
            cwd=django_settings.BASE_DIR,
            env=env,
            start_new_session=True,  # its own group: the fixture kills its demo process too
        )
        started.append(worker)
        return worker

    yield start
    for worker in started:
        try:
            os.killpg(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        worker.wait()
