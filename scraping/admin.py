from django.contrib import admin

from scraping.models import Heartbeat, ScrapeRun


@admin.register(ScrapeRun)
class ScrapeRunAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "keyword",
        "source",
        "status",
        "error",
        "started_at",
        "finished_at",
        "pages_fetched",
        "ads_seen",
        "ads_new",
        "price_drops",
    ]
    list_select_related = ["keyword"]
    list_filter = ["status", "error", "source"]
    search_fields = ["keyword__query", "error", "detail"]
    date_hierarchy = "started_at"
    readonly_fields = [f.name for f in ScrapeRun._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ["name", "last_seen_at", "detail"]
    readonly_fields = ["name", "last_seen_at", "detail"]

    def has_add_permission(self, request):
        return False
