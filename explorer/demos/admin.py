"""Demo runs in the admin (registered when explorer/admin.py imports this): listed and filtered
for upkeep, never edited (a worker writes them)."""

from django.contrib import admin

from explorer.demos.models import DemoRun


@admin.register(DemoRun)
class DemoRunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "slug",
        "version",
        "status",
        "progress",
        "limit",
        "attempts",
        "queued_at",
        "finished_at",
        "elapsed_s",
    )
    list_filter = ("status", "slug", "limit", "version", "queued_at")
    search_fields = ("slug", "error", "worker_id", "task_id")
    date_hierarchy = "queued_at"
    ordering = ("-queued_at", "-id")
    readonly_fields = [field.name for field in DemoRun._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
