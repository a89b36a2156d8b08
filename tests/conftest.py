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
