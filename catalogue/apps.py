from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save


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
        from catalogue import signals

        signals.connect(self)


def connect_graph_cache_signals(config: AppConfig) -> None:
    # The cached citation graph and the cached anonymous responses (explorer/web/middleware.py)
    # depend on every catalogue record: any write moves the catalogue to a new version.
    from catalogue.version import bump_generation

    for model in config.get_models():
        name = model.__name__
        if name == "WorkSearchText":
            continue  # derived from the others (and rewritten in bulk: no per-row signals)
        post_save.connect(bump_generation, sender=model, dispatch_uid=f"version-{name}-save")
        post_delete.connect(bump_generation, sender=model, dispatch_uid=f"version-{name}-del")
    for model in (config.get_model("Technique"), config.get_model("CostModel")):
        through = model.works.through
        m2m_changed.connect(bump_generation, sender=through, dispatch_uid=f"version-{through}")
