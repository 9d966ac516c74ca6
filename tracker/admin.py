from django.contrib import admin

from tracker.models import Ad, Keyword, KeywordAd, PriceChange


class PriceChangeInline(admin.TabularInline):
    model = PriceChange
    extra = 0
    can_delete = False
    readonly_fields = ["old_price", "new_price", "seen_at"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Keyword)
class KeywordAdmin(admin.ModelAdmin):
    list_display = ["display_name", "source", "interval_minutes", "is_active", "last_run_at", "next_run_at"]
    list_filter = ["source", "is_active"]
    search_fields = ["name", "query"]
    readonly_fields = [
        "cursor_published_at",
        "cursor_ad_id",
        "last_run_at",
        "zero_result_alert_at",
        "created_at",
        "updated_at",
    ]
    fieldsets = [
        (None, {"fields": ["name", "query", "source", "is_active", "interval_minutes"]}),
        ("Filters", {"fields": ["price_min", "price_max", "excluded_words"]}),
        (
            "Schedule and cursor",
            {"fields": ["next_run_at", "last_run_at", "cursor_published_at", "cursor_ad_id", "zero_result_alert_at"]},
        ),
        ("Record", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]


@admin.register(Ad)
class AdAdmin(admin.ModelAdmin):
    list_display = ["title", "source", "price", "location", "published_at", "first_seen_at"]
    list_filter = ["source"]
    search_fields = ["title", "external_id"]
    date_hierarchy = "first_seen_at"
    readonly_fields = [f.name for f in Ad._meta.fields if f.name != "id"]
    inlines = [PriceChangeInline]


@admin.register(PriceChange)
class PriceChangeAdmin(admin.ModelAdmin):
    list_display = ["ad", "old_price", "new_price", "seen_at"]
    list_select_related = ["ad"]
    search_fields = ["ad__title", "ad__external_id"]
    readonly_fields = ["ad", "old_price", "new_price", "seen_at"]
    date_hierarchy = "seen_at"


@admin.register(KeywordAd)
class KeywordAdAdmin(admin.ModelAdmin):
    list_display = ["keyword", "ad", "found_at"]
    list_select_related = ["keyword", "ad"]
    list_filter = ["keyword"]
    search_fields = ["ad__title", "keyword__query"]
    readonly_fields = ["keyword", "ad", "found_at"]
