"""Measured results: loaded by load_survey with their works and techniques, each figure's status
kept, a curator's edits kept on reload, and the admin refusing a read figure without its page."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from catalogue.models import Result, ResultStatus
from tests.catalogue.test_curation import admin_edit, admin_form_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "results.json"


@pytest.fixture
def curator_client(client, curator):
    client.force_login(curator)
    return client


def test_it_loads_every_result_of_the_fixture_with_its_work(survey):
    recorded = json.loads(FIXTURE.read_text("utf-8"))["results"]
    assert Result.objects.count() == len(recorded) >= 40
    goyal = Result.objects.get(slug="goyal2017-resnet50-256gpu")
    assert goyal.work.key == "goyal2017accurate"
    assert goyal.devices == 256 and goyal.network == "resnet-50"
    assert goyal.figure("time_to_train_s") == 3600
    assert goyal.status == ResultStatus.READ
    assert goyal.source_url == "https://research.fb.com/publications/imagenet1kin1h/"
    assert {t.slug for t in goyal.techniques.all()} >= {"data-parallelism", "allreduce"}
    palm = Result.objects.get(slug="chowdhery2022-palm-540b")  # a work after the survey now
    assert palm.work.key == "chowdhery2022palm" and palm.outside is None
    akiba = Result.objects.get(slug="akiba2017-resnet50-1024gpu")  # still outside the catalogue
    assert akiba.work is None and akiba.outside["key"] == "akiba2017extremely"


def test_a_second_load_changes_nothing(survey):
    before = list(Result.objects.values().order_by("slug"))
    call_command("load_survey", verbosity=0)
    assert list(Result.objects.values().order_by("slug")) == before


def test_it_keeps_a_result_edited_in_the_admin(survey, curator_client):
    result = Result.objects.get(slug="goyal2017-resnet50-256gpu")
    admin_edit(curator_client, "result", result.pk, interconnect="Ethernet (curated)")
    call_command("load_survey", verbosity=0)
    result.refresh_from_db()
    assert result.interconnect == "Ethernet (curated)"
    assert result.curated_fields == ["interconnect"]


def test_the_admin_refuses_a_read_figure_without_its_page(survey, curator_client):
    result = Result.objects.get(slug="goyal2017-resnet50-256gpu")
    figures = [dict(f, url="") if f["status"] == "read" else f for f in result.figures]
    url = f"/admin/catalogue/result/{result.pk}/change/"
    data = {**admin_form_data(curator_client.get(url)), "figures": json.dumps(figures)}
    response = curator_client.post(url, data)
    assert response.status_code == 200
    assert "a read figure needs the page" in response.content.decode()
