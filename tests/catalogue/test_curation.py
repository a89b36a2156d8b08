"""Curators never lose work: what they change through the admin, the API or an import survives
the README's run steps (`migrate` then `load_survey`), which report each kept difference; a reset
brings the fixtures' version back."""

import io
import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token

from catalogue.models import (
    Assignment,
    Category,
    Citation,
    CostModel,
    CuratorDeletion,
    Technique,
    Work,
)
from tests.helpers import catalogue_rows

FIXTURE_TITLE = "{Scalable stacking and learning for building deep architectures}"


@pytest.fixture
def curator_client(client, curator):
    client.force_login(curator)
    return client


def run_steps(*options: str) -> str:
    """The README's `make run` steps before serving, with what load_survey printed."""
    call_command("migrate", verbosity=0)
    out = io.StringIO()
    call_command("load_survey", *options, stdout=out)
    return out.getvalue()


def admin_form_data(response) -> dict:
    """The change form as the browser would send it back, inlines included."""
    form = response.context["adminform"].form
    data = {name: "" if form[name].value() is None else form[name].value() for name in form.fields}
    for name, value in data.items():
        if isinstance(value, list):  # many-to-many: the browser sends each id
            data[name] = [str(v) for v in value]
        elif isinstance(value, dict | list) or name in ("extra_fields", "variables"):
            data[name] = json.dumps(value) if not isinstance(value, str) else value
    for name, field in form.fields.items():
        if field.show_hidden_initial:  # rendered as a hidden input, sent back unchanged
            data[f"initial-{name}"] = data[name]
    for inline_formset in response.context["inline_admin_formsets"]:
        formset = inline_formset.formset
        prefix, management = formset.prefix, formset.management_form
        for name in management.fields:
            data[f"{prefix}-{name}"] = management[name].value()
        for index, inline in enumerate(formset.forms):
            for name in inline.fields:
                value = inline[name].value()
                if isinstance(value, dict | list) and name != "works":
                    value = json.dumps(value)
                data[f"{prefix}-{index}-{name}"] = "" if value is None else value
    return data


def admin_edit(client, model: str, pk: int, **changes) -> None:
    url = f"/admin/catalogue/{model}/{pk}/change/"
    data = {**admin_form_data(client.get(url)), **changes}
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors


@pytest.mark.django_db
def test_it_keeps_a_title_edited_in_the_admin_and_says_so(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk, title="Scalable stacking (curated)")

    output = run_steps()

    work.refresh_from_db()
    assert work.title == "Scalable stacking (curated)"
    assert work.curated_fields == ["title"]
    assert (
        "kept the curator's title of deng2012scalable; the fixture says "
        f"{FIXTURE_TITLE!r}" in output.splitlines()
    )
    assert b"Scalable stacking (curated)" in curator_client.get("/works/deng2012scalable/").content


@pytest.mark.django_db
def test_it_marks_only_what_the_admin_form_changed(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk)  # saved as it was
    work.refresh_from_db()
    assert work.curated_fields == []


@pytest.mark.django_db
def test_it_keeps_an_author_list_edited_in_the_admin(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    url = f"/admin/catalogue/work/{work.pk}/change/"
    data = admin_form_data(curator_client.get(url))
    data["authorships-2-DELETE"] = "on"  # drop J. Platt
    assert curator_client.post(url, data).status_code == 302

    output = run_steps()

    work.refresh_from_db()
    assert work.author_names == ["L. Deng", "D. Yu"]
    assert work.curated_fields == ["authors"]
    assert (
        "kept the curator's authors of deng2012scalable; the fixture says "
        "['L. Deng', 'D. Yu', 'J. Platt']" in output
    )


@pytest.mark.django_db
def test_it_keeps_categories_assignments_and_edges_edited_in_the_admin(survey, curator_client):
    category = Category.objects.get(code="net-pipe")
    admin_edit(curator_client, "category", category.pk, name="Pipelining (curated)")
    assignment = Assignment.objects.get(work__key="deng2012scalable", category=category)
    admin_edit(curator_client, "assignment", assignment.pk, evidence="partial")
    edge = Citation.objects.get(citing__key="dean2012large", cited__key="deng2012scalable")
    admin_edit(curator_client, "citation", edge.pk, evidence_excerpt="checked by hand")

    output = run_steps()

    assert Category.objects.get(code="net-pipe").name == "Pipelining (curated)"
    assert Assignment.objects.get(pk=assignment.pk).evidence == "partial"
    assert Citation.objects.get(pk=edge.pk).evidence_excerpt == "checked by hand"
    assert "kept the curator's name of category net-pipe; the fixture says" in output
    assert (
        "kept the curator's evidence of the assignment of deng2012scalable to net-pipe; "
        "the fixture says 'confirmed'" in output
    )
    assert (
        "kept the curator's evidence_excerpt of the edge dean2012large -> deng2012scalable "
        "(reference-list-note)" in output
    )


@pytest.mark.django_db
def test_it_keeps_techniques_and_cost_models_edited_in_the_admin(survey, curator_client):
    technique = Technique.objects.get(slug="activation")
    admin_edit(curator_client, "technique", technique.pk, name="Activations (curated)")
    model = CostModel.objects.get(technique=technique, label="Activation, forward: work")
    admin_edit(curator_client, "costmodel", model.pk, formula="N*C*H*W + 1")

    output = run_steps()

    assert Technique.objects.get(pk=technique.pk).name == "Activations (curated)"
    assert CostModel.objects.get(pk=model.pk).formula == "N*C*H*W + 1"
    assert "kept the curator's formula of cost model 'Activation, forward: work'" in output


@pytest.mark.django_db
def test_it_fixes_natural_keys_once_a_record_exists(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    count = Work.objects.count()
    admin_edit(curator_client, "work", work.pk, key="renamed2012")
    assert Work.objects.filter(key="deng2012scalable").exists()
    run_steps()
    assert Work.objects.count() == count


@pytest.mark.django_db
def test_it_keeps_what_the_api_changed(survey, client, curator):
    headers = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=curator).key}"}
    model = CostModel.objects.get(label="Activation, forward: work")
    response = client.patch(
        f"/api/cost-models/{model.pk}/",
        {"formula": "2*N*C*H*W", "status": "confirmed"},
        content_type="application/json",
        **headers,
    )
    assert response.status_code == 200, response.json()
    edge = Citation.objects.get(citing__key="dean2012large", cited__key="deng2012scalable")
    response = client.patch(
        f"/api/citations/{edge.pk}/",
        {"evidence_source": "https://example.org/checked"},
        content_type="application/json",
        **headers,
    )
    assert response.status_code == 200, response.json()

    output = run_steps()

    model.refresh_from_db()
    edge.refresh_from_db()
    # "status" was sent unchanged: only the formula is the curator's.
    assert (model.formula, model.curated_fields) == ("2*N*C*H*W", ["formula"])
    assert edge.evidence_source == "https://example.org/checked"
    assert "kept the curator's formula of cost model 'Activation, forward: work'" in output
    assert "kept the curator's evidence_source of the edge dean2012large" in output


@pytest.mark.django_db
def test_it_keeps_what_an_import_changed(survey, tmp_path):
    path = tmp_path / "fix.bib"
    path.write_text(
        "@inproceedings{deng2012scalable,\n  author = {L. Deng and D. Yu and J. Platt},\n"
        "  title = {Scalable Stacking, Imported},\n"
        "  booktitle = {IEEE International Conference on Acoustics, Speech and Signal "
        "Processing (ICASSP)},\n  pages = {2133--2136},\n  year = {2012},\n  surveyref = {62}\n}\n",
        encoding="utf-8",
    )
    call_command("import_bibtex", str(path), "--update", stdout=io.StringIO())

    output = run_steps()

    work = Work.objects.get(key="deng2012scalable")
    assert (work.title, work.curated_fields) == ("Scalable Stacking, Imported", ["title"])
    assert "kept the curator's title of deng2012scalable" in output


@pytest.mark.django_db
def test_it_changes_nothing_on_a_second_run_with_curated_records(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk, title="Curated", year="2013")
    run_steps()
    before = catalogue_rows()
    run_steps()
    after = catalogue_rows()
    assert after == before


@pytest.mark.django_db
def test_a_reset_brings_the_fixture_back(survey, curator_client):
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk, title="Curated")
    other = Work.objects.get(key="dean2012large")
    admin_edit(curator_client, "work", other.pk, title="Also curated")
    assignment = Assignment.objects.get(work=work, category__code="net-pipe")
    admin_edit(curator_client, "assignment", assignment.pk, evidence="partial")

    output = run_steps("--reset", "deng2012scalable", "--yes")

    work.refresh_from_db()
    assert (work.title, work.curated_fields) == (FIXTURE_TITLE, [])
    assert Assignment.objects.get(pk=assignment.pk).evidence == "confirmed"
    assert Work.objects.get(pk=other.pk).title == "Also curated"  # not asked for
    assert "Reset 2 curated records to the fixtures." in output


@pytest.mark.django_db
def test_reset_all_brings_every_fixture_value_back(mlperf, curator_client):
    before = catalogue_rows()
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk, title="Curated")
    category = Category.objects.get(code="net-pipe")
    admin_edit(curator_client, "category", category.pk, name="Curated")

    run_steps("--reset-all", "--yes")

    after = catalogue_rows()
    assert after == before


@pytest.mark.django_db
def test_a_reset_asks_first_and_does_nothing_unless_confirmed(survey, curator_client, monkeypatch):
    work = Work.objects.get(key="deng2012scalable")
    admin_edit(curator_client, "work", work.pk, title="Curated")
    with pytest.raises(CommandError, match="add --yes"):
        run_steps("--reset", "deng2012scalable")  # no terminal to ask on
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Nothing was reset"):
        run_steps("--reset", "deng2012scalable")
    assert Work.objects.get(pk=work.pk).title == "Curated"
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    output = run_steps("--reset", "deng2012scalable")
    assert "  deng2012scalable: title" in output
    assert Work.objects.get(pk=work.pk).title == FIXTURE_TITLE


@pytest.mark.django_db
def test_a_reset_of_an_unknown_key_is_refused(survey):
    with pytest.raises(CommandError, match="no work, category or technique nosuch2099"):
        run_steps("--reset", "nosuch2099", "--yes")


@pytest.mark.django_db
def test_it_leaves_a_curators_own_work_alone(survey):
    work = Work.objects.create(key="curator2020own", title="Own", curated_fields=["title"])
    run_steps("--reset-all", "--yes")
    assert Work.objects.get(pk=work.pk).title == "Own"


@pytest.mark.django_db
def test_it_does_not_bring_back_what_a_curator_deleted(survey, curator_client, client, curator):
    assignment = Assignment.objects.get(work__key="deng2012scalable", category__code="net-pipe")
    response = curator_client.post(
        f"/admin/catalogue/assignment/{assignment.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 302
    edge = Citation.objects.get(citing__key="dean2012large", cited__key="deng2012scalable")
    headers = {"HTTP_AUTHORIZATION": f"Token {Token.objects.create(user=curator).key}"}
    assert client.delete(f"/api/citations/{edge.pk}/", **headers).status_code == 204
    model = CostModel.objects.get(label="Activation, forward: work")
    assert client.delete(f"/api/cost-models/{model.pk}/", **headers).status_code == 204

    output = run_steps()

    assert not Assignment.objects.filter(pk=assignment.pk).exists()
    assert not Citation.objects.filter(citing__key="dean2012large", cited__key="deng2012scalable")
    assert not CostModel.objects.filter(label="Activation, forward: work").exists()
    assert output.splitlines()[:3] == [
        "left out the assignment of deng2012scalable to net-pipe: a curator deleted it "
        "(--reset brings it back)",
        "left out the edge dean2012large -> deng2012scalable (reference-list-note): a curator "
        "deleted it (--reset brings it back)",
        "left out cost model 'Activation, forward: work' of activation: a curator deleted it "
        "(--reset brings it back)",
    ]

    run_steps("--reset", "deng2012scalable", "--reset", "activation", "--yes")

    assert Assignment.objects.filter(work__key="deng2012scalable", category__code="net-pipe")
    assert Citation.objects.filter(citing__key="dean2012large", cited__key="deng2012scalable")
    assert CostModel.objects.filter(label="Activation, forward: work").exists()
    assert not CuratorDeletion.objects.exists()


@pytest.mark.django_db
def test_a_deleted_work_comes_back_with_its_assignments(survey, curator_client):
    """Only assignments, edges and cost models are remembered as deleted; a cascade from a
    deleted work is not a curator's choice about them."""
    work = Work.objects.get(key="deng2012scalable")
    response = curator_client.post(f"/admin/catalogue/work/{work.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    run_steps()
    assert Assignment.objects.filter(work__key="deng2012scalable").count() == 1
    assert not CuratorDeletion.objects.exists()


@pytest.mark.django_db
def test_the_api_keeps_natural_keys_fixed(survey, client, curator):
    client.force_login(curator)
    model = CostModel.objects.get(label="Activation, forward: work")
    response = client.patch(
        f"/api/cost-models/{model.pk}/", {"label": "Renamed"}, content_type="application/json"
    )
    assert (response.status_code, response.json()) == (
        400,
        {
            "status": 400,
            "code": "invalid",
            "detail": "label: cannot change once the record exists (create a new one instead)",
            "errors": {
                "label": ["cannot change once the record exists (create a new one instead)"]
            },
        },
    )
    edge = Citation.objects.get(citing__key="dean2012large", cited__key="deng2012scalable")
    response = client.patch(
        f"/api/citations/{edge.pk}/", {"provenance": "curator"}, content_type="application/json"
    )
    assert response.status_code == 400 and list(response.json()["errors"]) == ["provenance"]
