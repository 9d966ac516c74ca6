"""The admin of Apprise destinations: their URL is a secret, so it is typed, never shown back.

The form's URL field is a password field that renders empty; left empty on a change it keeps
the stored URL. Everywhere else (list, page, messages) the URL appears masked
(apprise_channel.mask).
"""

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from notifications import apprise_channel
from notifications.admin import TelegramChatAdmin
from notifications.models import Destination, Subscription, TelegramChat


class DestinationForm(forms.ModelForm):
    apprise_url = forms.CharField(
        label=_("Apprise URL"),
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "size": 80}),
        help_text=_(
            "e.g. mailtos://user:app-password@gmail.com, ntfys://ntfy.sh/my-topic, "
            "matrixs://user:password@matrix.org/#room. Stored, never shown again: leave empty "
            "to keep the current one."
        ),
    )

    class Meta:
        model = Destination
        fields = [
            "title",
            "apprise_url",
            "language",
            "status",
            "quiet_start",
            "quiet_end",
            "time_zone",
            "muted_until",
        ]
        labels = {"title": _("name")}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["title"].required = True
        status = self.fields["status"]
        status.choices = [(s, label) for s, label in status.choices if s in ("active", "paused")]
        if self.instance.pk is None:
            self.fields["apprise_url"].required = True
            status.initial = "active"

    def clean_apprise_url(self):
        # Empty on a change: the stored URL stays (it is never rendered into the form).
        return self.cleaned_data["apprise_url"] or self.instance.apprise_url


class DestinationSubscriptionInline(admin.TabularInline):
    """A destination's keywords, on the destination's page."""

    model = Subscription
    fk_name = "chat"
    extra = 0
    autocomplete_fields = ["keyword"]
    fields = ["keyword", "muted_until", "drop_rule", "drop_value", "created_at"]
    readonly_fields = ["created_at"]


class KeywordDestinationInline(admin.TabularInline):
    """A keyword's destinations, on the keyword's page (beside its Telegram subscribers)."""

    model = Subscription
    extra = 0
    fields = ["chat", "muted_until", "drop_rule", "drop_value", "created_at"]
    readonly_fields = ["created_at"]
    verbose_name = _("destination subscription")
    verbose_name_plural = _("destination subscriptions")

    def get_queryset(self, request):
        return super().get_queryset(request).filter(chat__channel=TelegramChat.Channel.APPRISE)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "chat":
            kwargs["queryset"] = Destination.objects.all()
            kwargs["label"] = _("destination")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Destination)
class DestinationAdmin(TelegramChatAdmin):
    channel = TelegramChat.Channel.APPRISE
    form = DestinationForm
    exclude = None
    list_display = [
        "name",
        "url_shown",
        "status_badge",
        "language",
        "muted_until",
        "last_success_at",
        "last_error_shown",
        "subscriptions_count",
    ]
    list_filter = ["status"]
    search_fields = ["title"]
    readonly_fields = [
        "url_shown",
        "status_reason",
        "last_success_at",
        "last_error_at",
        "last_error",
        "created_at",
    ]
    inlines = [DestinationSubscriptionInline]
    actions = ["send_test_message", "pause", "resume"]

    @admin.display(description=_("name"), ordering="title")
    def name(self, obj):
        return obj.title

    @admin.display(description=_("Apprise URL (masked)"))
    def url_shown(self, obj):
        return obj.masked_url if obj.apprise_url else "–"

    @admin.display(description=_("last error"))
    def last_error_shown(self, obj):
        return obj.last_error[:120]

    def save_model(self, request, obj, form, change):
        obj.channel = TelegramChat.Channel.APPRISE
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Send test message"), permissions=["change"])
    def send_test_message(self, request, queryset):
        """Straight through Apprise, not the outbox: the operator waits for the answer."""
        for destination in queryset:
            try:
                destination.send_test()
            except apprise_channel.DeliveryError as exc:
                self.message_user(
                    request,
                    _("Test message to %(name)s failed: %(error)s")
                    % {"name": destination, "error": exc},
                    messages.ERROR,
                )
            else:
                self.message_user(
                    request,
                    _("Test message sent to %(name)s.") % {"name": destination},
                    messages.SUCCESS,
                )

    @admin.action(description=_("Pause (stop sending, cancel queued)"), permissions=["change"])
    def pause(self, request, queryset):
        paused = [
            d.pause(f"paused by {request.user}", alert=False)
            for d in queryset.exclude(status=TelegramChat.Status.PAUSED)
        ]
        self.message_user(
            request,
            ngettext("%(n)d destination paused.", "%(n)d destinations paused.", len(paused))
            % {"n": len(paused)},
        )

    @admin.action(description=_("Resume (paused → active)"), permissions=["change"])
    def resume(self, request, queryset):
        done = sum(d.resume() for d in queryset)
        self.message_user(
            request,
            ngettext("%(n)d destination resumed.", "%(n)d destinations resumed.", done)
            % {"n": done},
        )
