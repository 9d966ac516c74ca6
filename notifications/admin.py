from django.contrib import admin, messages
from django.db.models import Count

from lib.admin_lists import BigTableAdmin
from lib.badges import badge
from notifications.models import Notification, Subscription, TelegramChat


class ChatSubscriptionInline(admin.TabularInline):
    """A chat's subscriptions, on the chat's page."""

    model = Subscription
    extra = 0
    autocomplete_fields = ["keyword"]


class KeywordSubscriptionInline(admin.TabularInline):
    """A keyword's subscribers, on the keyword's page (scraping.admin_keywords adds it)."""

    model = Subscription
    extra = 0
    autocomplete_fields = ["chat"]
    fields = ["chat", "muted_until", "drop_rule", "drop_value", "created_at"]
    readonly_fields = ["created_at"]


@admin.register(TelegramChat)
class TelegramChatAdmin(admin.ModelAdmin):
    list_display = [
        "chat_id",
        "title",
        "username",
        "status_badge",
        "status_reason",
        "is_admin",
        "muted_until",
        "subscriptions_count",
        "created_at",
    ]
    list_filter = ["status", "is_admin"]
    search_fields = ["chat_id", "title", "username"]
    readonly_fields = ["created_at"]
    inlines = [ChatSubscriptionInline]
    actions = ["approve", "block"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_subscriptions=Count("subscriptions"))

    @admin.display(description="status", ordering="status")
    def status_badge(self, obj):
        return badge("skipped" if obj.status == TelegramChat.Status.PENDING else obj.status, obj.get_status_display())

    @admin.display(description="subscriptions", ordering="n_subscriptions")
    def subscriptions_count(self, obj):
        return obj.n_subscriptions

    @admin.action(description="Approve (pending → active)", permissions=["change"])
    def approve(self, request, queryset):
        # Counted first: from the "pending" filter the queryset re-counts to 0 after approving.
        total = queryset.count()
        done = sum(chat.approve() for chat in queryset.filter(status=TelegramChat.Status.PENDING))
        self.message_user(request, f"{done} chat(s) approved and welcomed; {total - done} were not pending.")

    @admin.action(description="Block (stop sending, cancel queued)", permissions=["change"])
    def block(self, request, queryset):
        chats = queryset.exclude(status=TelegramChat.Status.BLOCKED)
        cancelled = [chat.block(f"blocked by {request.user}") for chat in chats]
        self.message_user(request, f"{len(cancelled)} chat(s) blocked; {sum(cancelled)} queued notification(s) cancelled.")


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):
    list_display = ["chat", "keyword", "muted_until", "created_at"]
    list_select_related = ["chat", "keyword"]
    list_filter = ["keyword"]
    search_fields = ["chat__title", "chat__username", "keyword__query"]
    autocomplete_fields = ["chat", "keyword"]


@admin.register(Notification)
class NotificationAdmin(BigTableAdmin):
    """The outbox: what waits, what failed and why; retry or cancel by hand."""

    list_display = ["id", "kind", "chat", "ad", "price", "status_badge", "attempts", "next_attempt_at", "short_error", "sent_at"]
    list_select_related = ["chat", "ad"]
    # Every chat (a small table), not RelatedOnlyFieldListFilter's DISTINCT over the outbox.
    list_filter = ["status", "kind", "chat"]
    search_fields = ["ad__title", "chat__title", "last_error"]
    # Read-only, without the sender's claim bookkeeping; retry and cancel are the actions.
    fields = readonly_fields = [f.name for f in Notification._meta.fields if f.name not in {"id", "claim_token", "claimed_at"}]
    actions = ["retry_now", "cancel"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="status", ordering="status")
    def status_badge(self, obj):
        return badge(obj.status)

    @admin.display(description="last error")
    def short_error(self, obj):
        return obj.last_error[:120]

    def has_requeue_permission(self, request):
        """The page is read-only (has_change_permission is False), yet retry/cancel change rows: staff with the change permission may."""
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    @admin.action(description="Retry now (dead or pending → pending, due now)", permissions=["requeue"])
    def retry_now(self, request, queryset):
        total = queryset.count()
        done = sum(n.retry_now() for n in queryset)
        self.message_user(request, f"{done} notification(s) queued to send now; {total - done} skipped (sent or cancelled).")

    @admin.action(description="Cancel (pending only)", permissions=["requeue"])
    def cancel(self, request, queryset):
        done = sum(n.cancel(f"cancelled by {request.user}") for n in queryset)
        level = messages.SUCCESS if done else messages.WARNING
        self.message_user(request, f"{done} pending notification(s) cancelled.", level)
