import pytest
from django.core.management import call_command

from tests.helpers import clear_caches


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


@pytest.fixture
def survey(db):
    """The whole survey, loaded by the real command (about a second)."""
    call_command("load_survey", verbosity=0)


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
