from django.apps import AppConfig
from django.db.models.signals import post_delete, post_migrate, post_save


def create_curators_group(sender, **kwargs) -> None:
    # Permissions exist only after migrate has run, so the group is made here, not in a migration.
    from catalogue.management.commands.create_curators_group import ensure_curators_group

    ensure_curators_group()


class CatalogueConfig(AppConfig):
    name = "catalogue"
    verbose_name = "Survey catalogue"

    def ready(self) -> None:
        post_migrate.connect(create_curators_group, sender=self)
        connect_graph_cache_signals(self)


def connect_graph_cache_signals(config: AppConfig) -> None:
    # The cached citation graph holds works, their category codes and the citations.
    from catalogue.graph import bump_generation

    for model_name in ("Work", "Assignment", "Category", "Citation"):
        model = config.get_model(model_name)
        post_save.connect(bump_generation, sender=model, dispatch_uid=f"graph-{model_name}-save")
        post_delete.connect(bump_generation, sender=model, dispatch_uid=f"graph-{model_name}-del")
