import logging

from django.contrib import admin, messages
from django.contrib.admin.utils import display_for_value
from django.db.models import Count
from django.utils import timezone, translation
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from lib.badges import badge
from lib.big_tables import BigTableAdmin
from lib.money import format_price
from notifications import telegram
from notifications.models import Notification, Subscription, TelegramChat

logger = logging.getLogger(__name__)
STATUS_LABELS = dict(Notification.Status.choices)
# Prices in the one price format (€ 1.700), not the raw decimal ("1700,00").
PRICE_DISPLAY = {"price": "price_shown", "old_price": "old_price_shown"}


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
    fields = ["chat", "muted_until", "drop_rule", "drop_value", "report_enabled", "created_at"]
    readonly_fields = ["created_at"]

    def get_queryset(self, request):
        # Destinations have their own inline (admin_destinations.KeywordDestinationInline).
        return super().get_queryset(request).filter(chat__channel=TelegramChat.Channel.TELEGRAM)


@admin.register(TelegramChat)
class TelegramChatAdmin(admin.ModelAdmin):
    # Fits 1366 px: the username under the title, the reason and the mute under the status.
    # The recipients this admin lists (DestinationAdmin lists the Apprise ones).
    channel = TelegramChat.Channel.TELEGRAM
    list_display = [
        "chat_id",
        "name",
        "status_badge",
        "admin_mark",
        "subscriptions_count",
        "created_at",
    ]
    list_filter = ["status", "is_admin"]
    search_fields = ["chat_id", "title", "username"]
    readonly_fields = ["created_at"]
    # A destination's fields (admin_destinations.DestinationAdmin).
    exclude = ["channel", "apprise_url", "last_success_at", "last_error_at", "last_error"]
    inlines = [ChatSubscriptionInline]
    actions = ["approve", "block", "make_admin_chat", "send_test_message"]

    def get_queryset(self, request):
        rows = super().get_queryset(request).filter(channel=self.channel)
        return rows.annotate(n_subscriptions=Count("subscriptions"))

    def save_model(self, request, obj, form, change):
        """Quiet hours changed here release what the old window held, as /quiet does (validation:
        TelegramChat.clean); a new report day, hour or time zone moves the next report."""
        quiet = {"quiet_start", "quiet_end", "time_zone"}
        if {"report_weekday", "report_hour", "time_zone"} & set(form.changed_data):
            obj.report_next_at = obj.next_report_at(timezone.now())
        if not change or not quiet & set(form.changed_data):
            return super().save_model(request, obj, form, change)
        old = TelegramChat.objects.get(pk=obj.pk)
        super().save_model(request, obj, form, change)
        now = timezone.now()
        released = obj.release_held(old.quiet_ends_at(now), now)
        if released:
            self.message_user(
                request,
                _("%(count)d notifications held for the old quiet hours are due now.")
                % {"count": released},
            )

    @admin.display(description=_("title"), ordering="title")
    def name(self, obj):
        if not obj.username:
            return obj.title or "–"
        return format_html('{}<br><span class="lago-muted">@{}</span>', obj.title, obj.username)

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj):
        muted = ""
        if obj.muted_until is not None:
            time = display_for_value(obj.muted_until, "")
            muted = format_html(
                '<br><span class="lago-muted lago-nowrap">{}</span>',
                _("muted until %(until)s") % {"until": time},
            )
        return format_html(
            "{}{}{}",
            badge(
                "skipped" if obj.status == TelegramChat.Status.PENDING else obj.status,
                obj.get_status_display(),
            ),
            format_html('<br><span class="lago-muted lago-wrap">{}</span>', obj.status_reason)
            if obj.status_reason
            else "",
            muted,
        )

    @admin.display(description=_("admin"), ordering="is_admin")
    def admin_mark(self, obj):
        # A ✔ for the few admin chats; a normal chat is not an error, so no red ✖ (boolean=True).
        return "✔" if obj.is_admin else ""

    @admin.display(description=_("subscriptions"), ordering="n_subscriptions")
    def subscriptions_count(self, obj):
        return obj.n_subscriptions

    @admin.action(description=_("Approve (pending → active)"), permissions=["change"])
    def approve(self, request, queryset):
        # Counted first: from the "pending" filter the queryset re-counts to 0 after approving.
        total = queryset.count()
        done = sum(chat.approve() for chat in queryset.filter(status=TelegramChat.Status.PENDING))
        text = ngettext(
            "%(n)d chat approved and welcomed", "%(n)d chats approved and welcomed", done
        ) % {"n": done}
        self.message_user(request, text + "; " + _("%(n)d were not pending.") % {"n": total - done})

    @admin.action(description=_("Block (stop sending, cancel queued)"), permissions=["change"])
    def block(self, request, queryset):
        chats = queryset.exclude(status=TelegramChat.Status.BLOCKED)
        cancelled = [chat.block(f"blocked by {request.user}") for chat in chats]
        text = ngettext("%(n)d chat blocked", "%(n)d chats blocked", len(cancelled)) % {
            "n": len(cancelled)
        }
        self.message_user(
            request,
            text + "; " + _("%(n)d queued notification(s) cancelled.") % {"n": sum(cancelled)},
        )

    @admin.action(
        description=_("Make admin chat (receives alerts and approval requests)"),
        permissions=["change"],
    )
    def make_admin_chat(self, request, queryset):
        # Alerts go to active admin chats only (TelegramChat.objects.admins()).
        total = queryset.count()
        done = queryset.filter(status=TelegramChat.Status.ACTIVE).update(is_admin=True)
        text = ngettext("%(n)d chat is an admin chat", "%(n)d chats are admin chats", done) % {
            "n": done
        }
        if total - done:
            text += "; " + _("%(n)d not active: approve them first.") % {"n": total - done}
        self.message_user(request, text, messages.SUCCESS if done else messages.WARNING)

    @admin.action(description=_("Send test message"), permissions=["change"])
    def send_test_message(self, request, queryset):
        """Straight through the Bot API, not the outbox: the operator waits for the answer."""
        if telegram.sending_paused():
            self.message_user(
                request,
                _("No bot token: set TELEGRAM_BOT_TOKEN in .env (or TELEGRAM_BOT_TOKEN_FILE)."),
                messages.ERROR,
            )
            return
        for chat in queryset:
            with translation.override(chat.language or None):
                text = gettext("Test message from Lago: this chat receives Lago's messages.")
            try:
                telegram.send_message(chat.chat_id, text, plain_text=text)
            except telegram.DeliveryError as exc:
                logger.warning(
                    "notifications: test message to chat %s failed: %s", chat.chat_id, exc
                )
                self.message_user(
                    request,
                    _("Test message to %(chat)s failed: %(error)s") % {"chat": chat, "error": exc},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request, _("Test message sent to %(chat)s.") % {"chat": chat}, messages.SUCCESS
                )


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

    # Fits 1366 px: attempts, the sending time and the last error under the status.
    list_display = [
        "id",
        "kind",
        "chat",
        "ad",
        "price_shown",
        "status_badge",
        "next_attempt",
    ]
    list_select_related = ["chat", "ad"]
    # Every chat (a small table), not RelatedOnlyFieldListFilter's DISTINCT over the outbox.
    list_filter = ["status", "kind", "chat"]
    search_fields = ["ad__title", "chat__title", "last_error"]
    # Read-only, without the sender's claim bookkeeping; retry and cancel are the actions.
    fields = readonly_fields = [
        PRICE_DISPLAY.get(f.name, f.name)
        for f in Notification._meta.fields
        if f.name not in {"id", "claim_token", "claimed_at"}
    ]
    actions = ["retry_now", "cancel"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if obj is not None and obj.status != Notification.Status.PENDING:
            return [f for f in fields if f != "next_attempt_at"]
        return fields

    @admin.display(description=_("next attempt"), ordering="next_attempt_at")
    def next_attempt(self, obj):
        # Only a pending row will be attempted again; on a sent, dead or cancelled row the
        # column's leftover value would read as a promise.
        if obj.status != Notification.Status.PENDING:
            return ""
        return obj.next_attempt_at

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj):
        """The badge (get_status_display() would hash every choice's lazy label, a gettext each,
        for every row), then the attempts, the time it was sent, the last error's start."""
        lines = [ngettext("%(n)d attempt", "%(n)d attempts", obj.attempts) % {"n": obj.attempts}]
        if obj.sent_at is not None:
            lines.append(display_for_value(obj.sent_at, ""))  # under the badge "sent"
        error = (
            format_html('<br><span class="lago-muted lago-wrap">{}</span>', self.short_error(obj))
            if obj.last_error
            else ""
        )
        return format_html(
            "{}{}{}",
            badge(obj.status, STATUS_LABELS.get(obj.status, obj.status)),
            format_html_join(
                "", '<br><span class="lago-muted lago-nowrap">{}</span>', ((x,) for x in lines)
            ),
            error,
        )

    @admin.display(description=_("price"), ordering="price")
    def price_shown(self, obj):
        # Alerts and welcomes carry no ad: no price, rather than "price on request".
        return "–" if obj.ad_id is None else format_price(obj.price)

    @admin.display(description=_("old price"), ordering="old_price")
    def old_price_shown(self, obj):
        return "–" if obj.old_price is None else format_price(obj.old_price)

    @admin.display(description=_("last error"))
    def short_error(self, obj):
        return obj.last_error[:120]

    def has_requeue_permission(self, request):
        """The page is read-only (has_change_permission is False), yet retry/cancel change rows:
        staff with the change permission may."""
        return request.user.has_perm(f"{self.opts.app_label}.change_{self.opts.model_name}")

    @admin.action(
        description=_("Retry now (dead or pending → pending, due now)"), permissions=["requeue"]
    )
    def retry_now(self, request, queryset):
        total = queryset.count()
        done = sum(n.retry_now() for n in queryset)
        text = ngettext(
            "%(n)d notification queued to send now", "%(n)d notifications queued to send now", done
        ) % {"n": done}
        self.message_user(
            request, text + "; " + _("%(n)d skipped (sent or cancelled).") % {"n": total - done}
        )

    @admin.action(description=_("Cancel (pending only)"), permissions=["requeue"])
    def cancel(self, request, queryset):
        done = sum(n.cancel(f"cancelled by {request.user}") for n in queryset)
        level = messages.SUCCESS if done else messages.WARNING
        self.message_user(
            request,
            ngettext(
                "%(n)d pending notification cancelled.",
                "%(n)d pending notifications cancelled.",
                done,
            )
            % {"n": done},
            level,
        )


# Registered for its side effect (it builds on TelegramChatAdmin, so it is imported last).
from notifications import admin_destinations  # noqa: E402, F401
