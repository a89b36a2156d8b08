from django.apps import AppConfig
from django.db.models.signals import post_migrate


def create_curators_group(sender, **kwargs) -> None:
    # Permissions exist only after migrate has run, so the group is made here, not in a migration.
    from catalogue.management.commands.create_curators_group import ensure_curators_group

    ensure_curators_group()


class CatalogueConfig(AppConfig):
    name = "catalogue"
    verbose_name = "Survey catalogue"

    def ready(self) -> None:
        post_migrate.connect(create_curators_group, sender=self)
