from django.contrib import admin

from notifications.models import Notification, Subscription, TelegramChat


class SubscriptionInline(admin.TabularInline):
    model = Subscription
    extra = 0
    autocomplete_fields = ["keyword"]


@admin.register(TelegramChat)
class TelegramChatAdmin(admin.ModelAdmin):
    list_display = ["chat_id", "title", "username", "status", "is_admin", "muted_until", "created_at"]
    list_filter = ["status", "is_admin"]
    search_fields = ["chat_id", "title", "username"]
    readonly_fields = ["created_at"]
    inlines = [SubscriptionInline]


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ["chat", "keyword", "muted_until", "created_at"]
    list_select_related = ["chat", "keyword"]
    list_filter = ["keyword"]
    search_fields = ["chat__title", "chat__username", "keyword__query"]
    autocomplete_fields = ["chat", "keyword"]


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["id", "kind", "chat", "ad", "price", "status", "attempts", "next_attempt_at", "sent_at"]
    list_select_related = ["chat", "ad"]
    list_filter = ["status", "kind"]
    search_fields = ["ad__title", "chat__title", "last_error"]
    readonly_fields = [f.name for f in Notification._meta.fields]

    def has_add_permission(self, request):
        return False
