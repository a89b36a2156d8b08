"""Create (or refresh) the "curators" group: add, change and delete on every catalogue model."""

from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand

CURATORS = "curators"


def ensure_curators_group() -> Group:
    group, _ = Group.objects.get_or_create(name=CURATORS)
    group.permissions.set(Permission.objects.filter(content_type__app_label="catalogue"))
    return group


class Command(BaseCommand):
    help = 'Create the "curators" group with edit permissions on the catalogue.'

    def handle(self, *args, **options):
        group = ensure_curators_group()
        self.stdout.write(f"Group {group.name!r} has {group.permissions.count()} permissions.")
