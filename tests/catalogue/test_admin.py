"""The curators' admin: pages load for a curator, anonymous users go to the login, BibTeX
uploads preview before writing, bad formulas are refused."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from catalogue.models import Assignment, Author, Category, Citation, CostModel, Technique, Work
from tests.helpers import make_category, make_cost_model, make_technique, make_work

MODELS = ["work", "author", "category", "assignment", "citation", "technique", "costmodel"]

UPLOAD = b"""@article{newwork2018, author = {A. Person and others}, title = {A New {GPU} Work},
  year = {2018}, journal = {Journal}}
"""


@pytest.fixture
def curator_client(client, curator):
    client.force_login(curator)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS)
def test_it_sends_anonymous_users_to_the_login(client, model):
    response = client.get(f"/admin/catalogue/{model}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS)
def test_it_shows_every_list_and_add_page_to_a_curator(survey, curator_client, model):
    assert curator_client.get(f"/admin/catalogue/{model}/").status_code == 200
    assert curator_client.get(f"/admin/catalogue/{model}/add/").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model, get",
    [
        ("work", lambda: Work.objects.get(key="dean2012large")),
        ("author", lambda: Author.objects.first()),
        ("category", lambda: Category.objects.get(code="train-cent")),
        ("assignment", lambda: Assignment.objects.first()),
        ("citation", lambda: Citation.objects.first()),
        ("technique", lambda: Technique.objects.first()),
        ("costmodel", lambda: CostModel.objects.first()),
    ],
)
def test_it_shows_every_change_page_to_a_curator(survey, curator_client, model, get):
    response = curator_client.get(f"/admin/catalogue/{model}/{get().pk}/change/")
    assert response.status_code == 200


@pytest.mark.django_db
def test_it_filters_works_by_level_and_evidence(survey, curator_client):
    response = curator_client.get("/admin/catalogue/work/?level=ops&evidence=confirmed")
    assert response.status_code == 200
    assert (
        response.context["cl"].result_count
        == Work.objects.filter(
            assignments__evidence="confirmed",
            assignments__category__code__in=Category.objects.get(code="ops").subtree_codes(),
        )
        .distinct()
        .count()
    )


@pytest.mark.django_db
def test_it_refuses_a_curator_without_the_group(client, django_user_model):
    user = django_user_model.objects.create_user("staff", password="x-long-password", is_staff=True)
    client.force_login(user)
    assert client.get("/admin/catalogue/work/").status_code == 403


@pytest.mark.django_db
def test_it_previews_an_upload_then_imports_it_on_confirm(curator_client):
    upload = SimpleUploadedFile("new.bib", UPLOAD, content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert preview.status_code == 200
    assert b"1 new, 0 with differences" in preview.content
    assert not Work.objects.filter(key="newwork2018").exists()

    confirm = curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": preview.context["digest"]},
    )
    assert confirm.status_code == 302
    work = Work.objects.get(key="newwork2018")
    assert work.author_names == ["A. Person"] and work.authors_truncated


@pytest.mark.django_db
def test_it_imports_nothing_from_an_upload_with_errors(curator_client):
    broken = UPLOAD + b"@article{bad, title = {No year ok}, year = {19x}}\n"
    upload = SimpleUploadedFile("broken.bib", broken, content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert b"four-digit year" in preview.content
    assert b"Import these changes" not in preview.content
    confirm = curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": preview.context["digest"]},
    )
    assert confirm.status_code == 302
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_it_refuses_an_oversized_upload(curator_client, settings):
    settings.BIBTEX_UPLOAD_MAX_BYTES = 100
    upload = SimpleUploadedFile("big.bib", UPLOAD * 10, content_type="text/plain")
    response = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert b"larger than" in response.content
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_it_refuses_an_unsafe_formula_in_the_admin(curator_client):
    category = make_category("ops")
    model = make_cost_model(make_technique("conv", category))
    url = f"/admin/catalogue/costmodel/{model.pk}/change/"
    data = {
        "technique": model.technique.pk,
        "quantity": "work",
        "eval": "",
        "label": "Work",
        "formula": "__import__('os').system('true')",
        "variables": '[{"name": "N", "default": 1, "min": 1, "max": 2}]',
        "unit": "",
        "section": "",
        "status": "confirmed",
        "status_note": "",
        "order": 0,
    }
    response = curator_client.post(url, data)
    assert response.status_code == 200
    assert "not allowed" in str(response.context["adminform"].form.errors["formula"])
    model.refresh_from_db()
    assert model.formula == "N*C"


@pytest.mark.django_db
def test_it_edits_a_work_and_the_public_page_shows_it(curator_client):
    work = make_work(key="edit2017", title="Before")
    response = curator_client.get(f"/admin/catalogue/work/{work.pk}/change/")
    form = response.context["adminform"].form
    data = {name: form[name].value() or "" for name in form.fields}
    data.update({"title": "After the edit", "extra_fields": "{}"})
    for inline_formset in response.context["inline_admin_formsets"]:
        formset = inline_formset.formset
        prefix, management = formset.prefix, formset.management_form
        for name in management.fields:
            data[f"{prefix}-{name}"] = management[name].value()
        for index, inline in enumerate(formset.forms):
            for name in inline.fields:
                value = inline[name].value()
                data[f"{prefix}-{index}-{name}"] = "" if value is None else value
    saved = curator_client.post(f"/admin/catalogue/work/{work.pk}/change/", data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    assert b"After the edit" in curator_client.get("/works/edit2017/").content


AFTER_UPLOAD = b"""@inproceedings{huang2019gpipe, author = {Yanping Huang}, title = {GPipe},
  year = {2019}, booktitle = {NeurIPS}, era = {after}%s}
"""


@pytest.mark.django_db
def test_it_imports_a_later_work_only_with_its_source_url(curator_client):
    missing = SimpleUploadedFile("late.bib", AFTER_UPLOAD % b"", content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": missing})
    assert b"needs a sourceurl" in preview.content
    assert b"Import these changes" not in preview.content

    body = (
        AFTER_UPLOAD
        % b", sourceurl = {https://scholar.archive.org/work/kntf5h3kifhdfdcbkpwikttbaa}"
    )
    upload = SimpleUploadedFile("late.bib", body, content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    assert b"1 new, 0 with differences" in preview.content
    curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": preview.context["digest"]},
    )
    work = Work.objects.get(key="huang2019gpipe")
    assert (work.era, work.source_url) == (
        "after",
        "https://scholar.archive.org/work/kntf5h3kifhdfdcbkpwikttbaa",
    )


@pytest.mark.django_db
def test_it_asks_the_admin_for_the_source_url_of_a_later_work(curator_client):
    data = {
        "key": "late2020",
        "entry_type": "misc",
        "title": "Late",
        "era": "after",
        "source_url": "",
        "field_sources": "{}",
        "extra_fields": "{}",
        **{f"{prefix}-TOTAL_FORMS": "0" for prefix in INLINE_PREFIXES},
        **{f"{prefix}-INITIAL_FORMS": "0" for prefix in INLINE_PREFIXES},
    }
    response = curator_client.post("/admin/catalogue/work/add/", data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["source_url"] == ["A work after the survey needs the URL of its source."]
    assert not Work.objects.exists()
    data["source_url"] = "https://example.org/late"
    assert curator_client.post("/admin/catalogue/work/add/", data).status_code == 302
    assert Work.objects.get(key="late2020").era == "after"


INLINE_PREFIXES = ["authorships", "assignments", "citations_out", "citations_in"]


MISTAKES = b"""@article{goodnew2020,
  author = {A. Person},
  title = {A Good New Work},
  year = {2020},
  journal = {J}
}

@article{missingcomma2021,
  author = {B. Person}
  title = {Missing Comma},
  year = {2021}
}

@article{badyear2022,
  author = {C. Person},
  title = {Bad Year},
  year = {20x3}
}
"""


@pytest.mark.django_db
def test_it_reports_every_error_of_an_upload_with_its_line(curator_client):
    """Issue 44: a missing comma hid the bad year below it, and the preview said "0 new" for
    the valid entry. Every error now, each with its line; the counts are what the import
    applies once the file is fixed, and it applies nothing until then."""
    upload = SimpleUploadedFile("mistakes.bib", MISTAKES, content_type="text/plain")
    preview = curator_client.post("/admin/catalogue/work/upload-bibtex/", {"file": upload})
    plan = preview.context["plan"]
    assert plan.errors == [
        "line 10: in entry 'missingcomma2021': missing comma after the author field "
        "(found 'title')",
        "entry 'badyear2022' (line 14): year '20x3' is not a four-digit year",
    ]
    assert [record.key for record in plan.create] == ["goodnew2020"]
    assert plan.summary().startswith(
        "2 errors: nothing is imported until they are fixed; then 1 new"
    )
    assert b"Import these changes" not in preview.content
    curator_client.post(
        "/admin/catalogue/work/upload-bibtex/",
        {"confirm": "1", "digest": preview.context["digest"]},
    )
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_the_admin_lists_titles_as_readers_read_them(curator_client):
    make_work("long2020", title="{" + "A Very Long Title About {GPU} Training " * 4 + "}")
    html = curator_client.get("/admin/catalogue/work/").content.decode()
    assert "GPU Training A Very Long Title About GPU Training A Very Long…<" in html
    assert "{GPU}" not in html


@pytest.mark.django_db
def test_the_category_filter_lists_categories_in_section_order(curator_client):
    for code, section in [("b", "4.2"), ("c", "1"), ("a", "2.3.1"), ("d", "10"), ("e", "2.10")]:
        make_category(code, name=f"Category {code}", section=section)
    response = curator_client.get("/admin/catalogue/work/")
    (spec,) = [f for f in response.context["cl"].filter_specs if f.title == "category"]
    labels = [label for _, label in spec.lookup_choices]
    assert labels == [
        "§1 Category c",
        "§2.3.1 Category a",
        "§2.10 Category e",
        "§4.2 Category b",
        "§10 Category d",
    ]


@pytest.mark.django_db
def test_the_category_filter_is_folded_until_a_category_is_chosen(curator_client):
    category = make_category("ops", name="Operators", section="4")
    folded = curator_client.get("/admin/catalogue/work/").content.decode()
    assert '<details data-filter-title="category">' in folded
    chosen = curator_client.get(f"/admin/catalogue/work/?category={category.pk}").content.decode()
    assert '<details data-filter-title="category" open>' in chosen
