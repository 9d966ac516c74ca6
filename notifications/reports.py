"""The weekly market report: queued per subscription when the chat's report hour comes, sent by the
sender as a photo (the chart, PNG bytes drawn here) with a caption in the chat's language.

Queueing (the tick's step, queue_due_reports): the chats whose report_next_at has come, one indexed
query; for each, a conditional UPDATE moves report_next_at on a week (two ticks cannot both queue
it) and one REPORT row per subscription that wants reports is written in the same transaction.
The rows' unique key (chat, "report:<keyword>:<ISO week>") makes a second row for the same week
impossible, so a report is never sent twice. From there a report is a row like any other: claims,
retries, dead, mutes and quiet hours apply.

Rendering (the sender, render_report) reads the keyword's figures when the row is sent (a report
held by quiet hours tells the state at delivery) through tracker.market_report, whose queries are
per keyword and indexed.
"""

import logging
import time

from django.db import transaction
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from lib.money import format_price
from notifications.messages import CAPTION_LIMIT, ELLIPSIS, Rendered, esc
from notifications.models import Notification, Subscription, TelegramChat
from notifications.telegram import DeliveryError
from tracker.market_report import BEFORE_WEEKS, market_report
from tracker.report_chart import report_chart_png

logger = logging.getLogger(__name__)

TITLE_MAX = 80  # a deal's title in the caption, before the caption's limit shortens it further


def report_key(keyword_id, week):
    return f"report:{keyword_id}:{week}"


def queue_due_reports(now=None) -> int:
    """Queues the reports of every chat whose report moment has come; returns how many rows.

    Chats never scheduled (new ones) get their first moment here; a chat due several weeks (the
    scheduler was down) gets this week's report only.
    """
    now = now or timezone.now()
    for chat in TelegramChat.objects.active().filter(report_next_at__isnull=True):
        chat.schedule_report(now)
    queued = 0
    due = TelegramChat.objects.reports_due(now).only(
        "pk",
        "chat_id",
        "channel",
        "title",
        "report_weekday",
        "report_hour",
        "report_next_at",
        "time_zone",
    )
    for chat in due:
        queued += queue_chat_reports(chat, now)
    return queued


def queue_chat_reports(chat, now) -> int:
    """Queues one chat's REPORT rows for the week of its due moment, if this call wins the claim;
    returns how many rows it offered."""
    due_at = chat.report_next_at
    with transaction.atomic():
        claimed = TelegramChat.objects.filter(pk=chat.pk, report_next_at=due_at).update(
            report_next_at=chat.next_report_at(now)
        )
        if not claimed:
            return 0  # another tick queued it
        week = chat.report_week(due_at)
        # In keyword order: the sender's round-robin then reaches all chats of a keyword together,
        # and they share its drawing (render_report).
        keyword_ids = (
            Subscription.objects.filter(chat=chat, report_enabled=True, keyword__is_active=True)
            .order_by("keyword_id")
            .values_list("keyword_id", flat=True)
        )
        rows = [
            Notification(
                chat_id=chat.pk,
                keyword_id=keyword_id,
                kind=Notification.Kind.REPORT,
                alert_key=report_key(keyword_id, week),
                next_attempt_at=now,
                created_at=now,
            )
            for keyword_id in keyword_ids
        ]
        # A row this week already has (the chat's day moved within the week) is left as it is.
        Notification.objects.bulk_create(rows, ignore_conflicts=True)
    if rows:
        logger.info(
            "notifications: %d weekly reports (%s) queued for %s",
            len(rows),
            week,
            chat.log_name,
        )
    return len(rows)


class _Drawn:
    """This process's recently drawn reports: {(keyword pk, language, week): (until, report,
    PNG)}. The chats of one keyword get the same figures and chart (a chart costs about as much
    as a whole sending slot), drawn once; a report sent later than RENDER_TTL_S is drawn anew."""

    reports = {}


RENDER_TTL_S = 600
RENDER_CACHE_MAX = 256


def forget_drawn():
    """Drops the drawn reports (sender.reset_state: tests, a fresh process)."""
    _Drawn.reports = {}


def _make_room(clock):
    """Drops expired drawings, then the oldest, to stay under RENDER_CACHE_MAX (some 10 MB). The
    sender's round-robin over chats reaches every chat of a keyword before the next keyword, so
    the oldest drawing is the one least likely to be asked for again."""
    reports = _Drawn.reports
    if len(reports) < RENDER_CACHE_MAX:
        return
    for key in [k for k, (until, _r, _p) in reports.items() if until < clock]:
        del reports[key]
    while len(reports) >= RENDER_CACHE_MAX:
        del reports[next(iter(reports))]


def render_report(notification, now=None) -> Rendered:
    """The report row's photo (chart bytes) and caption, in the active language."""
    keyword = notification.keyword
    if keyword is None:
        raise DeliveryError("the report's keyword was deleted", permanent=True)
    key = (keyword.pk, get_language(), notification.alert_key)
    clock = time.monotonic()
    drawn = _Drawn.reports.get(key)
    if drawn is None or drawn[0] < clock:
        report = market_report(keyword, now or timezone.now())
        drawn = (clock + RENDER_TTL_S, report, report_chart_png(report))
        _make_room(clock)
        _Drawn.reports[key] = drawn
    _until, report, png = drawn
    html, plain = caption(report)
    return Rendered(html=html, plain=plain, photo_bytes=png)


def caption(report, limit=CAPTION_LIMIT):
    """(HTML, plain text) of `report`, within Telegram's caption limit: the deals' titles are
    shortened first, then the last deals left out."""
    deals = list(report.deals)
    title_max = TITLE_MAX
    while True:
        html = "\n".join(_lines(report, deals, title_max, escape=True))
        plain = "\n".join(_lines(report, deals, title_max, escape=False))
        if max(len(html), len(plain)) <= limit:
            return html, plain
        if title_max > 10:
            title_max -= 10
        elif deals:
            deals.pop()
        else:
            return html[: limit - 1] + ELLIPSIS, plain[: limit - 1] + ELLIPSIS


def _short(text, length):
    return text if len(text) <= length else text[: length - 1] + ELLIPSIS


def _lines(report, deals, title_max, escape):
    e = esc if escape else str
    bold = (lambda s: f"<b>{esc(s)}</b>") if escape else str
    heading = _("Weekly report: %(keyword)s") % {"keyword": _short(report.keyword_name, 100)}
    lines = ["📊 " + bold(heading)]
    if report.median_now is None:
        lines.append(e(_("No prices this week.")))
    elif report.median_before is None:
        lines.append(e(_("Median price: %(now)s") % {"now": format_price(report.median_now)}))
    else:
        lines.append(
            e(
                _("Median price: %(now)s (%(weeks)d weeks ago: %(before)s)")
                % {
                    "now": format_price(report.median_now),
                    "weeks": BEFORE_WEEKS,
                    "before": format_price(report.median_before),
                }
            )
        )
    lines.append(
        e(
            _("This week: %(new)d new, %(gone)d gone")
            % {"new": report.new_this_week, "gone": report.gone_this_week}
        )
    )
    if report.median_days_to_go is not None:
        days = round(report.median_days_to_go)
        lines.append(e(_("An ad goes after %(days)d days (median).") % {"days": days}))
    if deals:
        lines.append("💡 " + e(_("Best deals:")))
    for deal in deals:
        price = format_price(deal.price)
        if deal.percent is not None:
            under = _("%(percent)s %% under the median") % {"percent": f"{abs(deal.percent):.0f}"}
            price = f"{price} ({under})"
        title = _short(deal.title, title_max)
        if escape:
            lines.append(f'• <a href="{esc(deal.url)}">{esc(title)}</a> — {esc(price)}')
        else:
            lines.append(f"• {title} — {price} {deal.url}")
    return lines
