"""The curators' admin: every catalogue model, with search, filters, inlines and a BibTeX upload
that previews what will change before anything is written."""

from __future__ import annotations

import hashlib
import re

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.forms.models import BaseInlineFormSet
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path

from catalogue import bibtex
from catalogue.latex import shortened
from catalogue.models import (
    Assignment,
    Author,
    Authorship,
    Category,
    Citation,
    CostModel,
    Curated,
    CuratorDeletion,
    Person,
    Result,
    Technique,
    Work,
)

SESSION_UPLOAD_KEY = "bibtex_upload"


def _model_field_names(model) -> set[str]:
    return {f.name for f in model._meta.get_fields() if not f.auto_created}


def mark_form_changes(form) -> None:
    """Name the fields this form changed in its record's `curated_fields` (all of them for a
    new record), so that load_survey keeps the curator's values."""
    record = form.instance
    if not isinstance(record, Curated):
        return
    names = form.changed_data if record.pk else list(form.fields)
    record.mark_curated(set(names) & _model_field_names(type(record)))


class CuratedAdmin(admin.ModelAdmin):
    """Records what curators change, in the record and its inlines, and which fixture records
    they delete (assignments, edges, cost models); natural keys (which the
    fixtures match on) are fixed once a record exists, so that a reload cannot duplicate it."""

    natural_key_fields: tuple[str, ...] = ()
    readonly_fields = ["curated_fields"]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return fields + list(self.natural_key_fields) if obj is not None else fields

    def save_model(self, request, obj, form, change):
        mark_form_changes(form)
        super().save_model(request, obj, form, change)

    def delete_model(self, request, obj):
        CuratorDeletion.record(obj)
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for record in queryset:
            CuratorDeletion.record(record)
        super().delete_queryset(request, queryset)

    def save_formset(self, request, form, formset, change):
        for deleted_form in formset.deleted_forms:
            CuratorDeletion.record(deleted_form.instance)
        for inline_form in formset.forms:
            if inline_form.has_changed() and inline_form not in formset.deleted_forms:
                mark_form_changes(inline_form)
        if formset.model is Authorship and formset.has_changed():
            # An edited author list belongs to the work: mark it there.
            work = form.instance
            work.mark_curated(["authors"])
            Work.objects.filter(pk=work.pk).update(curated_fields=work.curated_fields)
        super().save_formset(request, form, formset, change)


class LevelFilter(admin.SimpleListFilter):
    """Filter works by top-level category (operators, networks, training, background)."""

    title = "parallelism level"
    parameter_name = "level"

    def lookups(self, request, model_admin):
        return [(c.code, c.name) for c in Category.objects.top_level()]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        level = Category.objects.filter(code=self.value()).first()
        return queryset.in_category(level) if level else queryset.none()


class EvidenceFilter(admin.SimpleListFilter):
    title = "assignment evidence"
    parameter_name = "evidence"

    def lookups(self, request, model_admin):
        return Assignment._meta.get_field("evidence").choices

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        return queryset.filter(assignments__evidence=self.value()).distinct()


def section_order(category: Category) -> tuple:
    """§1 < §2.3.1 < §4.2 < §10 (numbers, not text); the categories after the survey next, by
    the section they extend, then any without a section, by code."""
    section = category.section or category.extends
    numbers = tuple(int(part) for part in re.findall(r"\d+", section or ""))
    return (not numbers, bool(category.extends), numbers, category.code)


FILTER_LABEL_LENGTH = 40  # the filter column keeps its width; the list keeps the page


def category_filter(lookup: str) -> type[admin.SimpleListFilter]:
    """A category filter over `lookup` (the category's id on the filtered model), its
    categories in section order and each label short enough not to widen the filter column."""

    class CategoryFilter(admin.SimpleListFilter):
        title = "category"
        parameter_name = "category"
        template = "admin/catalogue/category_filter.html"  # folded until a category is chosen

        def lookups(self, request, model_admin):
            ordered = sorted(Category.objects.all(), key=section_order)
            return [(str(c.pk), shortened(str(c), FILTER_LABEL_LENGTH)) for c in ordered]

        def queryset(self, request, queryset):
            if not self.value():
                return queryset
            if not self.value().isdigit():
                return queryset.none()
            return queryset.filter(**{lookup: int(self.value())}).distinct()

    return CategoryFilter


class LabelledInlineFormSet(BaseInlineFormSet):
    """Every control of a tabular inline's row names itself (aria-label): the table's column
    header is no label a screen reader (or axe) can tie to the control."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        row = "new row" if index is None else f"row {index + 1}"
        for name, field in form.fields.items():
            label = field.label or name.replace("_", " ")
            field.widget.attrs.setdefault("aria-label", f"{label} ({row})")


class AuthorshipInline(admin.TabularInline):
    formset = LabelledInlineFormSet
    model = Authorship
    extra = 0
    autocomplete_fields = ["author"]
    ordering = ["position"]


class AssignmentInline(admin.TabularInline):
    formset = LabelledInlineFormSet
    model = Assignment
    extra = 0
    autocomplete_fields = ["category"]


class CitationsOutInline(admin.TabularInline):
    formset = LabelledInlineFormSet
    model = Citation
    fk_name = "citing"
    extra = 0
    autocomplete_fields = ["cited"]
    verbose_name = "citation made by this work"
    verbose_name_plural = "cites (edges out)"
    fields = ["cited", "provenance", "evidence_source", "evidence_excerpt"]


class CitationsInInline(CitationsOutInline):
    fk_name = "cited"
    autocomplete_fields = ["citing"]
    verbose_name = "citation of this work"
    verbose_name_plural = "cited by (edges in)"
    fields = ["citing", "provenance", "evidence_source", "evidence_excerpt"]


class BibtexUploadForm(forms.Form):
    file = forms.FileField(help_text="A .bib file, at most 2 MB.")

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.BIBTEX_UPLOAD_MAX_BYTES
        if upload.size > limit:
            raise forms.ValidationError(f"The file is larger than {limit // 1024} KB.")
        try:
            return bibtex.decode_bibtex(upload.read())
        except bibtex.BibtexError as error:
            raise forms.ValidationError(str(error)) from error


@admin.register(Work)
class WorkAdmin(CuratedAdmin):
    list_display = ["key", "short_title", "year", "venue", "era", "survey_ref", "authors_truncated"]
    list_filter = [
        "era",
        LevelFilter,
        category_filter("assignments__category"),
        EvidenceFilter,
        "year",
        "entry_type",
    ]
    search_fields = ["key", "title", "authorships__author__name", "venue", "arxiv_id", "doi"]
    ordering = ["survey_ref"]
    inlines = [AuthorshipInline, AssignmentInline, CitationsOutInline, CitationsInInline]
    list_per_page = 50
    change_list_template = "admin/catalogue/work/change_list.html"
    fieldsets = [
        (None, {"fields": ["key", "entry_type", "title", "year", "authors_truncated"]}),
        (
            "Venue",
            {"fields": ["journal", "booktitle", "venue", "volume", "number", "pages", "publisher"]},
        ),
        (
            "Era and source",
            {
                "fields": ["era", "source_url", "field_sources"],
                "description": "A work after the survey needs the URL of the page its metadata "
                "was read from; its categories use the evidence level 'curated after the survey' "
                "with the reason (what it extends) in the source note.",
            },
        ),
        ("Identifiers", {"fields": ["survey_ref", "arxiv_id", "doi", "url"]}),
        ("Text", {"fields": ["abstract", "note", "extra_fields"]}),
        ("Snowballing", {"fields": ["seminal", "seminal_reason"]}),
        ("Curation", {"fields": ["curated_fields"]}),
    ]
    natural_key_fields = ("key",)

    @admin.display(description="title", ordering="title")
    def short_title(self, work: Work) -> str:
        return shortened(bibtex.display_text(work.title), 90)

    def get_urls(self):
        upload = self.admin_site.admin_view(self.upload_bibtex)
        return [
            path("upload-bibtex/", upload, name="catalogue_work_upload_bibtex"),
            *super().get_urls(),
        ]

    def upload_bibtex(self, request):
        """Step 1: upload and preview; step 2: confirm, which applies the stored upload."""
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied
        if request.method == "POST" and "confirm" in request.POST:
            return self._apply_upload(request)
        form = BibtexUploadForm(request.POST or None, request.FILES or None)
        plan = None
        if request.method == "POST" and form.is_valid():
            text = form.cleaned_data["file"]
            plan = bibtex.plan_import(text)
            request.session[SESSION_UPLOAD_KEY] = {"text": text, "digest": _digest(text)}
        context = {
            **self.admin_site.each_context(request),
            "title": "Import BibTeX",
            "form": form,
            "plan": plan,
            "digest": request.session.get(SESSION_UPLOAD_KEY, {}).get("digest") if plan else None,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/catalogue/work/upload_bibtex.html", context)

    def _apply_upload(self, request):
        stored = request.session.get(SESSION_UPLOAD_KEY)
        if not stored or stored["digest"] != request.POST.get("digest"):
            messages.error(request, "The upload to confirm was not found; upload the file again.")
            return redirect("admin:catalogue_work_upload_bibtex")
        plan = bibtex.plan_import(stored["text"])
        if not plan.ok:
            messages.error(request, "The file has errors; nothing was imported.")
            return redirect("admin:catalogue_work_upload_bibtex")
        # Each difference on a stored work is written only if the curator ticked it.
        ticked = {tuple(value.split(" ", 1)) for value in request.POST.getlist("apply")}
        applied = bibtex.apply_import(plan, accepted=ticked)
        del request.session[SESSION_UPLOAD_KEY]
        messages.success(
            request, f"Imported: {plan.summary()}; fields written on stored works: {len(applied)}"
        )
        return redirect("admin:catalogue_work_changelist")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    search_fields = ["name"]
    list_display = ["name", "person", "identity_note"]
    list_filter = [("person", admin.EmptyFieldListFilter)]
    autocomplete_fields = ["person"]


@admin.register(Person)
class PersonAdmin(admin.ModelAdmin):
    search_fields = ["name"]
    list_display = ["name"]


@admin.register(Category)
class CategoryAdmin(CuratedAdmin):
    list_display = ["code", "name", "section", "extends", "parent", "order", "status"]
    list_filter = ["parent", "status"]
    search_fields = ["code", "name", "section"]
    autocomplete_fields = ["parent"]
    natural_key_fields = ("code",)


@admin.register(Assignment)
class AssignmentAdmin(CuratedAdmin):
    list_display = ["work", "category", "evidence"]
    list_filter = ["evidence", category_filter("category")]
    search_fields = ["work__key", "work__title", "category__code", "source_note"]
    autocomplete_fields = ["work", "category"]
    list_select_related = ["work", "category"]
    natural_key_fields = ("work", "category")


@admin.register(Citation)
class CitationAdmin(CuratedAdmin):
    list_display = ["citing", "cited", "provenance"]
    list_filter = ["provenance"]
    search_fields = [
        "citing__key",
        "cited__key",
        "citing__title",
        "cited__title",
        "evidence_source",
    ]
    autocomplete_fields = ["citing", "cited"]
    list_select_related = ["citing", "cited"]
    natural_key_fields = ("citing", "cited", "provenance")


class CostModelInline(admin.StackedInline):
    model = CostModel
    extra = 0
    autocomplete_fields = ["works"]


@admin.register(Technique)
class TechniqueAdmin(CuratedAdmin):
    list_display = ["slug", "name", "category", "demo_slug"]
    list_filter = ["category"]
    search_fields = ["slug", "name", "summary"]
    autocomplete_fields = ["category", "works"]
    inlines = [CostModelInline]
    natural_key_fields = ("slug",)


@admin.register(CostModel)
class CostModelAdmin(CuratedAdmin):
    list_display = ["label", "technique", "quantity", "formula", "status"]
    list_filter = ["status", "quantity", "technique"]
    search_fields = ["label", "formula", "technique__name", "status_note"]
    autocomplete_fields = ["technique", "works"]
    natural_key_fields = ("technique", "label")


@admin.register(Result)
class ResultAdmin(CuratedAdmin):
    """Measured results: a curator's change is kept by load_survey, as for works; the status of
    each figure (read on a page, derived, recalled) is part of what a curator edits, checked by
    Result.clean as the fixtures' build checks it (a read figure names its page)."""

    list_display = ["slug", "work", "year", "network", "devices", "family", "status"]
    list_filter = ["status", "family", "year"]
    search_fields = ["slug", "network", "device_kind", "claim", "work__key", "work__title"]
    autocomplete_fields = ["work", "techniques"]
    natural_key_fields = ("slug",)


@admin.register(CuratorDeletion)
class CuratorDeletionAdmin(admin.ModelAdmin):
    """Fixture records that curators deleted; delete a row here and the next load_survey brings
    the record back."""

    list_display = ["kind", "key", "deleted_at"]
    list_filter = ["kind"]
    search_fields = ["key"]
    readonly_fields = ["kind", "key", "deleted_at"]

    def has_add_permission(self, request):
        return False
