"""Admin pieces for activity: a keyword's last 30 days, an ad's relist links."""

from datetime import datetime, time, timedelta

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tracker.models import KeywordAd, PriceChange

ACTIVITY_DAYS = 30


def _date(moment):
    return date_format(timezone.localtime(moment), "SHORT_DATE_FORMAT")


class KeywordActivityAdmin:
    """A readonly field `activity` for the Keyword change page."""

    @admin.display(description=gettext_lazy("last 30 days"))
    def activity(self, obj):
        if obj.pk is None:
            return ""
        first_day = timezone.localdate() - timedelta(days=ACTIVITY_DAYS - 1)
        since = timezone.make_aware(datetime.combine(first_day, time.min))
        found = KeywordAd.objects.found_per_day(obj, since)
        drops = PriceChange.objects.drops_per_day(obj, since)
        days = sorted(set(found) | set(drops), reverse=True)
        if not days:
            return _("No ads found and no price drops in the last %(days)s days.") % {
                "days": ACTIVITY_DAYS
            }
        rows = format_html_join(
            "",
            '<tr><td>{}</td><td class="lago-found">{}</td><td class="lago-drops">{}</td></tr>',
            (
                (date_format(day, "SHORT_DATE_FORMAT"), found.get(day, 0), drops.get(day, 0))
                for day in days
            ),
        )
        return format_html(
            '<table class="lago-activity">'
            "<thead><tr><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody>"
            "<tfoot><tr><th>{}</th><th>{}</th><th>{}</th></tr></tfoot></table>",
            _("day"),
            _("ads found"),
            _("price drops"),
            rows,
            _("total"),
            sum(found.values()),
            sum(drops.values()),
        )


class AdRelistAdmin:
    """Readonly fields `earlier_listing` and `later_relists` for the Ad change page."""

    @admin.display(description=gettext_lazy("relist of"))
    def earlier_listing(self, obj):
        earlier = obj.relist_of
        if earlier is None:
            return "—"
        return self._listing_link(earlier)

    @admin.display(description=gettext_lazy("relisted as"))
    def later_relists(self, obj):
        if obj.pk is None:
            return "—"
        later = list(obj.relists.order_by("first_seen_at")[:5])
        if not later:
            return "—"
        return format_html_join(
            mark_safe("<br>"), "{}", ((self._listing_link(ad),) for ad in later)
        )

    @staticmethod
    def _listing_link(ad):
        listed = _date(ad.published_at or ad.first_seen_at)
        if ad.gone_at is None:
            when = _("listed %(listed)s") % {"listed": listed}
        else:
            when = _("listed %(listed)s, gone %(gone)s") % {
                "listed": listed,
                "gone": _date(ad.gone_at),
            }
        return format_html(
            '<a href="{}" class="lago-relist">{}</a> <span class="lago-muted">{}</span>',
            reverse("admin:tracker_ad_change", args=[ad.pk]),
            ad.title,
            when,
        )
