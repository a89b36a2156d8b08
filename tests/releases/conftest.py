import pytest


@pytest.fixture
def releases_dir(settings, tmp_path):
    """An empty releases folder for the test (the repository's own is never written)."""
    settings.RELEASES_DIR = tmp_path / "releases"
    return settings.RELEASES_DIR
