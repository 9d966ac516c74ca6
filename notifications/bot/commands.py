"""What each bot command does, synchronously and against the database.

Every function takes the calling chat (`ChatRef`) and the command's arguments and
returns a `Reply`: HTML text (user text always escaped), an optional keyboard, and
messages for other chats (admins hearing of a registration). No Telegram I/O here:
handlers.py runs these in a thread and sends the result. A chat only ever sees its
own subscriptions and notifications; access.access() is the single gate.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from notifications.alerts import enqueue_admin_alert
from notifications.bot import drop_rules, keyboards, price_command, quiet_command, report_command
from notifications.bot.access import approve
from notifications.bot.drop_rules import RuleError, split_rule
from notifications.bot.durations import DurationError, describe, parse_duration
from notifications.bot.help import help_text
from notifications.bot.replies import CallbackReply, ChatRef, Reply, chat_of, when
from notifications.messages import esc
from notifications.models import MUTED_FOREVER, Notification, Subscription
from tracker.models import Keyword

logger = logging.getLogger(__name__)

KEYWORDS_SHOWN = 40
RECENT_SHOWN = 5
QUERY_MAX = 200
# Keywords listed when a name fits several.
CANDIDATES_SHOWN = 10


# --- commands for active chats -------------------------------------------------------


def help_(ref: ChatRef, args=()) -> Reply:
    return Reply(help_text(chat_of(ref)))


def keywords(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    active = list(Keyword.objects.filter(is_active=True).order_by("id")[: KEYWORDS_SHOWN + 1])
    if not active:
        return Reply(_("There are no active keywords yet. An admin adds them; try again later."))
    subscribed = set(chat.subscriptions.values_list("keyword_id", flat=True))
    shown = active[:KEYWORDS_SHOWN]
    lines = ["<b>" + _("Keywords") + "</b> " + _("(tap to subscribe or unsubscribe)")]
    lines += [f"{'✅' if k.pk in subscribed else '▫️'} #{k.pk} {esc(k.display_name)}" for k in shown]
    if len(active) > KEYWORDS_SHOWN:
        lines.append(
            "… "
            + _("and more: use /subscribe &lt;id&gt; for keywords not listed (ids above #%(id)s).")
            % {"id": shown[-1].pk}
        )
    return Reply("\n".join(lines), keyboards.keywords_keyboard(shown, subscribed))


def _keyword_arg(args, command, active_only=True, chat=None):
    """(keyword, None) or (None, error Reply) for `/command <id or name>`.

    With active_only=False an inactive keyword is found only when `chat` follows it:
    nobody learns the names of keywords they cannot see in /keywords.
    """
    if not args:
        return None, Reply(
            _(
                "Which keyword? Send /%(command)s &lt;id&gt;, e.g. /%(command)s 12. /keywords "
                "lists the ids."
            )
            % {"command": command}
        )
    raw = args[0].lstrip("#")
    # ASCII digits only: "²".isdigit() is True, but int("²") fails.
    if len(args) > 1 or not (raw.isascii() and raw.isdigit() and len(raw) <= 18):
        return _keyword_by_name(" ".join(args), command, active_only, chat)
    keyword = Keyword.objects.filter(pk=int(raw)).first()
    if (
        keyword is not None
        and not keyword.is_active
        and (active_only or not _follows(chat, keyword))
    ):
        keyword = None
    if keyword is None:
        return None, Reply(
            _("There is no active keyword #%(id)s. /keywords lists the ones you can follow.")
            % {"id": int(raw)}
        )
    return keyword, None


def _follows(chat, keyword):
    return chat is not None and Subscription.objects.filter(chat=chat, keyword=keyword).exists()


def _keyword_by_name(text, command, active_only, chat):
    """A keyword named `text` (its name, or its query when it has none), case-insensitively; else
    the one whose name or query starts with `text` ("rennrad" finds "rennrad carbon · bis € 2.000").
    Several matches: the reply lists them with their ids."""
    visible = (
        Q(is_active=True)
        if active_only or chat is None
        else Q(is_active=True) | Q(subscriptions__chat=chat)
    )
    exact = Q(name__iexact=text) | Q(name="", query__iexact=text)
    prefix = Q(name__istartswith=text) | Q(query__istartswith=text)
    for match in (exact, prefix):
        found = list(
            Keyword.objects.filter(match)
            .filter(visible)
            .distinct()
            .order_by("id")[: CANDIDATES_SHOWN + 1]
        )
        if found:
            break
    if len(found) == 1:
        return found[0], None
    if found:
        values = {"name": esc(text), "command": command}
        if match is exact:
            head = _(
                "Several keywords are called “%(name)s”: send /%(command)s &lt;id&gt;. /keywords "
                "lists the ids."
            )
        else:
            head = _("Several keywords start with “%(name)s”: send /%(command)s &lt;id&gt;.")
        lines = [head % values]
        lines += [f"#{k.pk} {esc(k.display_name)}" for k in found[:CANDIDATES_SHOWN]]
        if len(found) > CANDIDATES_SHOWN:
            lines.append("…")
        return None, Reply("\n".join(lines))
    return None, Reply(
        _(
            "There is no active keyword “%(name)s”. Send /%(command)s &lt;id&gt;; /keywords lists "
            "them."
        )
        % {"name": esc(text), "command": command}
    )


def subscribe(ref: ChatRef, args=()) -> Reply:
    try:
        args, rule = split_rule(args)
    except RuleError as exc:
        logger.info("bot: chat %s: /subscribe %r refused: %s", ref.chat_id, " ".join(args), exc)
        return Reply(esc(str(exc)))
    keyword, error = _keyword_arg(args, "subscribe")
    if error:
        return error
    chat = chat_of(ref)
    # The rule was validated by split_rule; the subscription and its rule are saved together.
    with transaction.atomic():
        created = chat.subscribe(keyword)
        if rule is not None:
            sub = chat.subscriptions.get(keyword=keyword)
            drop_rules.apply_rule(sub, rule)
    name = f"#{keyword.pk} {esc(keyword.display_name)}"
    if rule is not None:
        values = {"name": name, "rule": esc(sub.describe_rule())}
        if sub.drop_rule == Subscription.DropRule.DEAL and created:
            return Reply(
                "✅ " + _("Subscribed to %(name)s: %(rule)s (new ads and price drops).") % values
            )
        if sub.drop_rule == Subscription.DropRule.DEAL:
            return Reply(
                "✅ " + _("Updated %(name)s: %(rule)s (new ads and price drops).") % values
            )
        if created:
            return Reply(
                "✅ " + _("Subscribed to %(name)s: new ads, and price drops: %(rule)s.") % values
            )
        return Reply("✅ " + _("Updated %(name)s: new ads, and price drops: %(rule)s.") % values)
    if not created:
        return Reply(
            _("You follow %(name)s already. /status shows all your subscriptions.") % {"name": name}
        )
    return Reply(
        "✅ "
        + _("Subscribed to %(name)s. New ads and price drops will come here.") % {"name": name}
    )


def unsubscribe(ref: ChatRef, args=()) -> Reply:
    keyword, error = _keyword_arg(args, "unsubscribe", active_only=False, chat=chat_of(ref))
    if error:
        return error
    name = f"#{keyword.pk} {esc(keyword.display_name)}"
    if not chat_of(ref).unsubscribe(keyword):
        return Reply(
            _("You do not follow %(name)s. /status shows your subscriptions.") % {"name": name}
        )
    return Reply(_("Unsubscribed from %(name)s. /keywords to follow others.") % {"name": name})


def mute(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    if not args:
        chat.mute(MUTED_FOREVER)
        return Reply("🔕 " + _("Muted until you send /unmute. Messages wait and are not lost."))
    try:
        delta = parse_duration(" ".join(args))
    except DurationError as exc:
        return Reply(esc(str(exc)))
    chat.mute(timezone.now() + delta)
    values = {"duration": describe(delta), "until": when(chat.muted_until)}
    return Reply(
        "🔕 "
        + _("Muted for %(duration)s (until %(until)s). /unmute turns messages on earlier.") % values
    )


def unmute(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    was_muted = chat.is_muted()
    keywords_cleared = chat.unmute()
    if not was_muted and not keywords_cleared:
        return Reply(_("Nothing was muted. Messages are on."))
    if keywords_cleared:
        n = keywords_cleared
        text = ngettext(
            "Messages are on again (%(n)d muted keyword on again).",
            "Messages are on again (%(n)d muted keywords on again).",
            n,
        )
        return Reply("🔔 " + text % {"n": n})
    return Reply("🔔 " + _("Messages are on again."))


def stop(ref: ChatRef, args=()) -> Reply:
    cancelled = chat_of(ref).stop()
    note = " " + ngettext(
        "%(n)d queued message was dropped.", "%(n)d queued messages were dropped.", cancelled
    ) % {"n": cancelled}
    return Reply(
        "⏹ "
        + _("Stopped: Lago sends nothing more to this chat.")
        + (note if cancelled else "")
        + " "
        + _("Send /start to resume.")
    )


def status(ref: ChatRef, args=()) -> Reply:
    chat = chat_of(ref)
    now = timezone.now()
    if chat.muted_until and chat.muted_until >= MUTED_FOREVER - timedelta(days=1):
        state = "🔕 " + _("muted until /unmute")
    elif chat.is_muted(now):
        state = "🔕 " + _("muted until %(until)s") % {"until": when(chat.muted_until)}
    else:
        state = "🔔 " + _("on")
    lines = ["<b>" + _("Your Lago status") + "</b>", _("Messages: %(state)s") % {"state": state}]
    subs = list(chat.subscriptions.select_related("keyword").order_by("keyword_id"))
    if subs:
        lines.append(_("Subscriptions (%(n)d):") % {"n": len(subs)})
        for sub in subs:
            muted, paused = sub.muted_until and sub.muted_until > now, not sub.keyword.is_active
            flags = [
                " " + _("(keyword muted)") if muted else "",
                " " + _("(paused)") if paused else "",
            ]
            lines.append(f"• #{sub.keyword_id} {esc(sub.keyword.display_name)}{''.join(flags)}")
    else:
        lines.append(_("Subscriptions: none yet. /keywords to choose."))
    pending = chat.notifications.pending().count()
    lines.append(_("Waiting to be sent: %(n)d") % {"n": pending})
    recent = (
        chat.notifications.filter(status=Notification.Status.SENT)
        .select_related("ad")
        .order_by("-sent_at")[:RECENT_SHOWN]
    )
    if recent:
        lines.append(_("Last messages:"))
        for n in recent:
            text = _(n.text) if n.kind == Notification.Kind.WELCOME else n.text  # stored in English
            label = n.ad.title if n.ad_id else (text or _("message"))
            lines.append(f"• {when(n.sent_at)} {esc(label[:80])}")
    return Reply("\n".join(lines))


def add(ref: ChatRef, args=()) -> Reply:
    if not settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS:
        return Reply(
            _(
                "Adding keywords from the chat is turned off. Ask an admin to add it; /keywords "
                "lists the existing ones."
            )
        )
    query = " ".join(args).strip()
    if not query:
        return Reply(
            _(
                "What should Lago search for? Send /add &lt;search words&gt;, e.g. /add rennrad "
                "carbon."
            )
        )
    if len(query) > QUERY_MAX:
        return Reply(
            _("That search is too long (%(n)d characters, at most %(max)d).")
            % {"n": len(query), "max": QUERY_MAX}
        )
    limit = settings.TELEGRAM_ADD_PER_DAY
    if (
        Keyword.objects.filter(
            proposed_by_chat_id=ref.chat_id, created_at__gte=timezone.now() - timedelta(days=1)
        ).count()
        >= limit
    ):
        too_many = _(
            "You proposed %(n)d keywords in the last 24 hours, the most a chat may. Please wait "
            "for an admin to look at them."
        )
        return Reply(too_many % {"n": limit})
    # The admins' alert in the site's language (LANGUAGE_CODE), not the proposing chat's.
    with transaction.atomic(), translation.override(settings.LANGUAGE_CODE):
        keyword = Keyword.objects.create(
            query=query, is_active=False, proposed_by_chat_id=ref.chat_id
        )
        enqueue_admin_alert(
            f"keyword-proposed:{keyword.pk}",
            _(
                "Chat %(chat)s proposed keyword #%(id)s “%(query)s”. Activate it in the Django "
                "admin (Keywords)."
            )
            % {"chat": ref.chat_id, "id": keyword.pk, "query": query},
        )
    proposed = _(
        "Keyword #%(id)s “%(query)s” is proposed. An admin must activate it; then /subscribe "
        "%(id)s."
    )
    return Reply("📝 " + proposed % {"id": keyword.pk, "query": esc(query)})


def price(ref: ChatRef, args=()) -> Reply:
    return price_command.price(ref, args, _keyword_arg)


COMMANDS = {
    "help": help_,
    "keywords": keywords,
    "subscribe": subscribe,
    "unsubscribe": unsubscribe,
    "mute": mute,
    "unmute": unmute,
    "status": status,
    "stop": stop,
    "add": add,
    "quiet": quiet_command.quiet,
    "price": price,
    "report": report_command.report,
}


# --- buttons -------------------------------------------------------------------------


def callback(ref: ChatRef, data: str) -> CallbackReply:
    """A button press in an active chat (the gate has run)."""
    if (data or "").startswith(keyboards.RULE_PREFIX):
        return drop_rules.press(chat_of(ref), data)
    action = keyboards.parse(data)
    if action is None:
        return CallbackReply(_("This button is no longer valid. Try /help."), alert=True)
    if action.name == "approve":
        return approve(ref, action.value)
    chat = chat_of(ref)
    if action.name == "snooze":
        seconds = min(max(action.value, 60), 7 * 86400)
        chat.mute(timezone.now() + timedelta(seconds=seconds))
        snoozed = _("Snoozed for %(duration)s. /unmute ends it earlier.") % {
            "duration": describe(timedelta(seconds=seconds))
        }
        return CallbackReply("💤 " + snoozed)
    keyword = Keyword.objects.filter(pk=action.value).first()
    if keyword is not None and not keyword.is_active and not _follows(chat, keyword):
        keyword = None  # an inactive keyword's name only for chats that follow it
    if keyword is None:
        return CallbackReply(
            _("That keyword does not exist any more. /keywords lists the current ones."), alert=True
        )
    name = {"name": keyword.display_name}
    if action.name == "mutekw":
        if not chat.mute_keyword(keyword.pk):
            return CallbackReply(_("You do not follow “%(name)s” any more.") % name)
        return CallbackReply("🔕 " + _("“%(name)s” muted until /unmute.") % name)
    if action.name == "sub":
        if not keyword.is_active:
            return CallbackReply(
                _("“%(name)s” is paused; you can subscribe again once it is active.") % name,
                alert=True,
            )
        chat.subscribe(keyword)
        toast = "✅ " + _("Subscribed to “%(name)s”") % name
    else:
        chat.unsubscribe(keyword)
        toast = _("Unsubscribed from “%(name)s”") % name
    return CallbackReply(toast, edit_keyboard=True, keyboard=keywords(ref).keyboard)
