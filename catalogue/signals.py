"""Keep each work's search text (WorkSearchText) in step with what curators change.

A save or delete of anything a work's search text shows (the work, its authors, its categories,
its techniques, their names and descriptions) rewrites the search text of the works concerned,
in the same transaction. Bulk writes send no signals: their callers refresh
(`Work.set_authors`, `load_survey`; `manage.py rebuild_search_index` rebuilds everything).
Fixture loading (raw saves) brings its own search text rows.
"""

from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete


def refresh(work_ids) -> None:
    from catalogue.models import WorkSearchText

    WorkSearchText.objects.refresh(work_ids)


def work_saved(sender, instance, raw=False, **kwargs) -> None:
    if not raw:
        refresh([instance.pk])


def work_deleted(sender, instance, **kwargs) -> None:
    # A cascade may have rewritten the row (an authorship deleted before the work): drop it.
    from catalogue.models import WorkSearchText

    WorkSearchText.objects.filter(work_id=instance.pk).delete()


def part_of_work_changed(sender, instance, raw=False, **kwargs) -> None:
    """An authorship or an assignment: its own work."""
    if not raw:
        refresh([instance.work_id])


def works_of(instance) -> list[int]:
    """The works whose text shows this author, category or technique."""
    from catalogue.models import Assignment, Author, Category, Technique

    if isinstance(instance, Author):
        return list(instance.authorships.values_list("work_id", flat=True))
    if isinstance(instance, Category):
        return list(Assignment.objects.filter(category=instance).values_list("work_id", flat=True))
    if isinstance(instance, Technique):
        return list(instance.works.values_list("pk", flat=True))
    return []


def named_thing_saved(sender, instance, raw=False, created=False, **kwargs) -> None:
    if not raw and not created:
        refresh(works_of(instance))


def technique_deleting(sender, instance, **kwargs) -> None:
    instance._search_works = works_of(instance)  # its links are gone by post_delete


def technique_deleted(sender, instance, **kwargs) -> None:
    refresh(getattr(instance, "_search_works", []))


def technique_works_changed(sender, instance, action, reverse, pk_set, **kwargs) -> None:
    """technique.works.add(...) (pk_set: works) or work.techniques.add(...) (reverse)."""
    if action == "pre_clear":
        instance._search_works = [instance.pk] if reverse else works_of(instance)
    elif action == "post_clear":
        refresh(getattr(instance, "_search_works", []))
    elif action in ("post_add", "post_remove"):
        refresh([instance.pk] if reverse else pk_set or [])


def connect(config: AppConfig) -> None:
    Work = config.get_model("Work")
    post_save.connect(work_saved, sender=Work, dispatch_uid="search-work-save")
    post_delete.connect(work_deleted, sender=Work, dispatch_uid="search-work-delete")
    for name in ("Authorship", "Assignment"):
        model = config.get_model(name)
        post_save.connect(part_of_work_changed, sender=model, dispatch_uid=f"search-{name}-s")
        post_delete.connect(part_of_work_changed, sender=model, dispatch_uid=f"search-{name}-d")
    for name in ("Author", "Category", "Technique"):
        model = config.get_model(name)
        post_save.connect(named_thing_saved, sender=model, dispatch_uid=f"search-{name}-save")
    Technique = config.get_model("Technique")
    pre_delete.connect(technique_deleting, sender=Technique, dispatch_uid="search-tech-pre")
    post_delete.connect(technique_deleted, sender=Technique, dispatch_uid="search-tech-del")
    m2m_changed.connect(
        technique_works_changed, sender=Technique.works.through, dispatch_uid="search-tech-works"
    )
