"""What each bot command does, synchronously and against the database.

Every function takes the calling chat (`ChatRef`) and the command's arguments and
returns a `Reply`: HTML text (user text always escaped), an optional keyboard, and
messages for other chats (admins hearing of a registration). No Telegram I/O here:
handlers.py runs these in a thread and sends the result. A chat only ever sees its
own subscriptions and notifications; access() is the single gate.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from telegram import InlineKeyboardMarkup

from notifications.bot import keyboards
from notifications.bot.durations import DurationError, describe, parse_duration
from notifications.messages import esc
from notifications.models import MUTED_FOREVER, Notification, TelegramChat
from tracker.models import Keyword

ADMIN_COMMANDS = {"stats", "health"}
KEYWORDS_SHOWN = 40
RECENT_SHOWN = 5
QUERY_MAX = 200

PENDING_TEXT = "⏳ Your request to use Lago is waiting for an admin's approval. You will get a message here once it is approved."
UNKNOWN_TEXT = "👋 This is Lago, the willhaben.at watcher. Send /start to ask for access."
STOPPED_TEXT = "⏹ You stopped Lago's messages. Send /start to resume."


@dataclass(frozen=True)
class ChatRef:
    """The chat an update came from, as Telegram describes it."""

    chat_id: int
    title: str = ""
    username: str = ""
    private: bool = True


@dataclass
class Reply:
    text: str
    keyboard: InlineKeyboardMarkup | None = None
    # (chat_id, Reply): messages to other chats, e.g. admins told of a registration.
    others: list = field(default_factory=list)


@dataclass
class CallbackReply:
    """The answer to a button press: a toast, and optionally new text/keyboard for the pressed message."""

    toast: str
    alert: bool = False
    edit_keyboard: bool = False
    keyboard: InlineKeyboardMarkup | None = None
    edit_text: str | None = None


def _chat(ref):
    return TelegramChat.objects.filter(chat_id=ref.chat_id).first()


def _when(moment):
    return f"{timezone.localtime(moment):%d.%m.%Y %H:%M}"


# --- the gate ------------------------------------------------------------------------


def access(ref: ChatRef, command: str | None) -> Reply | None:
    """None when the chat may run `command` (None: a button or plain text); else the only reply it gets.

    Pending, blocked, stopped and unknown chats get the registration reply whatever they send
    (/start is routed to start() before this gate). Admin commands need an admin chat.
    """
    chat = _chat(ref)
    if chat is None:
        return Reply(UNKNOWN_TEXT)
    if chat.status == TelegramChat.Status.PENDING:
        return Reply(PENDING_TEXT)
    if chat.status == TelegramChat.Status.STOPPED:
        return Reply(STOPPED_TEXT)
    if chat.status != TelegramChat.Status.ACTIVE:
        return Reply("🚫 This chat is blocked. Send /start to ask an admin for access again.")
    if (command in ADMIN_COMMANDS or command == "approve") and not chat.is_admin:
        label = "That button" if command == "approve" else f"/{command}"
        return Reply(f"{label} is for admins only. Try /help.")
    return None


# --- registration ------------------------------------------------------------------


def start(ref: ChatRef, args=()) -> Reply:
    chat, outcome = TelegramChat.objects.register(ref.chat_id, ref.title, ref.username)
    if outcome == "welcome":
        return Reply("✅ Welcome to Lago! You will hear about new ads and price drops for the keywords you follow.\n\n" + _help(chat))
    if outcome == "resumed":
        return Reply("▶️ Welcome back: messages are on again. /status shows what you follow.")
    if outcome == "already":
        return Reply("You are registered already. /keywords lists what you can follow, /help all commands.")
    if outcome == "waiting":
        return Reply(PENDING_TEXT)
    name = " ".join(part for part in (ref.title, f"(@{ref.username})" if ref.username else "") if part)
    request = f"🙋 Chat {ref.chat_id} {esc(name)} asks to use Lago.".replace("  ", " ")
    request += "\nApprove it with the button, or in the Django admin (Telegram chats)."
    others = [(admin_id, Reply(request, keyboards.approve_keyboard(ref.chat_id))) for admin_id in _admin_chat_ids(exclude=ref.chat_id)]
    return Reply("📨 Thanks! An admin must approve this chat before Lago sends anything. You will get a message here once approved.",
                 others=others)


def _admin_chat_ids(exclude=None):
    return list(TelegramChat.objects.admins().exclude(chat_id=exclude).values_list("chat_id", flat=True))


def approve(ref: ChatRef, target_chat_id: int) -> CallbackReply:
    target = TelegramChat.objects.filter(chat_id=target_chat_id).first()
    if target is None:
        return CallbackReply("That chat is not registered (any more).", alert=True, edit_keyboard=True)
    name = esc(str(target))
    if not target.approve():
        return CallbackReply(f"Chat {target.chat_id} is active already.", edit_keyboard=True)
    return CallbackReply("Approved ✅", edit_text=f"✅ Chat {target.chat_id} ({name}) approved; a welcome message is queued.")


# --- commands for active chats -------------------------------------------------------


def help_(ref: ChatRef, args=()) -> Reply:
    return Reply(_help(_chat(ref)))


def _help(chat):
    lines = [
        "<b>Lago commands</b>",
        "/keywords — the keywords you can follow, with buttons",
        "/subscribe &lt;id&gt; — follow a keyword",
        "/unsubscribe &lt;id&gt; — stop following it",
        "/mute [duration] — pause messages (e.g. /mute 2h, /mute 1d; without a duration until /unmute)",
        "/unmute — messages on again (also for muted keywords)",
        "/status — your subscriptions and recent messages",
        "/stop — stop all messages (/start resumes)",
    ]
    if settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS:
        lines.append("/add &lt;search words&gt; — propose a keyword (an admin activates it)")
    if chat is not None and chat.is_admin:
        lines += ["", "<b>Admin</b>", "/stats — figures of the last 24 h", "/health — is Lago working?"]
    return "\n".join(lines)


def keywords(ref: ChatRef, args=()) -> Reply:
    chat = _chat(ref)
    active = list(Keyword.objects.filter(is_active=True).order_by("id")[: KEYWORDS_SHOWN + 1])
    if not active:
        return Reply("There are no active keywords yet. An admin adds them; try again later.")
    subscribed = set(chat.subscriptions.values_list("keyword_id", flat=True))
    shown = active[:KEYWORDS_SHOWN]
    lines = ["<b>Keywords</b> (tap to subscribe or unsubscribe)"]
    lines += [f"{'✅' if k.pk in subscribed else '▫️'} #{k.pk} {esc(k.display_name)}" for k in shown]
    if len(active) > KEYWORDS_SHOWN:
        lines.append(f"… and more: use /subscribe &lt;id&gt; for keywords not listed (ids above #{shown[-1].pk}).")
    return Reply("\n".join(lines), keyboards.keywords_keyboard(shown, subscribed))


def _keyword_arg(args, command, active_only=True):
    """(keyword, None) or (None, error Reply) for `/command <id>`."""
    if not args:
        return None, Reply(f"Which keyword? Send /{command} &lt;id&gt;, e.g. /{command} 12. /keywords lists the ids.")
    raw = args[0].lstrip("#")
    if not raw.isdigit():
        return None, Reply(f"“{esc(args[0])}” is not a keyword id. Send /{command} &lt;id&gt; with a number; /keywords lists the ids.")
    keyword = Keyword.objects.filter(pk=int(raw)).first()
    if keyword is None or (active_only and not keyword.is_active):
        return None, Reply(f"There is no active keyword #{int(raw)}. /keywords lists the ones you can follow.")
    return keyword, None


def subscribe(ref: ChatRef, args=()) -> Reply:
    keyword, error = _keyword_arg(args, "subscribe")
    if error:
        return error
    if not _chat(ref).subscribe(keyword):
        return Reply(f"You follow #{keyword.pk} {esc(keyword.display_name)} already. /status shows all your subscriptions.")
    return Reply(f"✅ Subscribed to #{keyword.pk} {esc(keyword.display_name)}. New ads and price drops will come here.")


def unsubscribe(ref: ChatRef, args=()) -> Reply:
    keyword, error = _keyword_arg(args, "unsubscribe", active_only=False)
    if error:
        return error
    if not _chat(ref).unsubscribe(keyword):
        return Reply(f"You do not follow #{keyword.pk} {esc(keyword.display_name)}. /status shows your subscriptions.")
    return Reply(f"Unsubscribed from #{keyword.pk} {esc(keyword.display_name)}. /keywords to follow others.")


def mute(ref: ChatRef, args=()) -> Reply:
    chat = _chat(ref)
    if not args:
        chat.mute(MUTED_FOREVER)
        return Reply("🔕 Muted until you send /unmute. Messages wait and are not lost.")
    try:
        delta = parse_duration(" ".join(args))
    except DurationError as exc:
        return Reply(esc(str(exc)))
    chat.mute(timezone.now() + delta)
    return Reply(f"🔕 Muted for {describe(delta)} (until {_when(chat.muted_until)}). /unmute turns messages on earlier.")


def unmute(ref: ChatRef, args=()) -> Reply:
    chat = _chat(ref)
    was_muted = chat.is_muted()
    keywords_cleared = chat.unmute()
    if not was_muted and not keywords_cleared:
        return Reply("Nothing was muted. Messages are on.")
    extra = f" ({keywords_cleared} muted keyword{'s' if keywords_cleared != 1 else ''} on again)" if keywords_cleared else ""
    return Reply(f"🔔 Messages are on again{extra}.")


def stop(ref: ChatRef, args=()) -> Reply:
    cancelled = _chat(ref).stop()
    note = f" {cancelled} queued message{'s were' if cancelled != 1 else ' was'} dropped." if cancelled else ""
    return Reply(f"⏹ Stopped: Lago sends nothing more to this chat.{note} Send /start to resume.")


def status(ref: ChatRef, args=()) -> Reply:
    chat = _chat(ref)
    now = timezone.now()
    if chat.muted_until and chat.muted_until >= MUTED_FOREVER - timedelta(days=1):
        state = "🔕 muted until /unmute"
    elif chat.is_muted(now):
        state = f"🔕 muted until {_when(chat.muted_until)}"
    else:
        state = "🔔 on"
    lines = ["<b>Your Lago status</b>", f"Messages: {state}"]
    subs = list(chat.subscriptions.select_related("keyword").order_by("keyword_id"))
    if subs:
        lines.append(f"Subscriptions ({len(subs)}):")
        for sub in subs:
            flags = [" (keyword muted)" if sub.muted_until and sub.muted_until > now else "", "" if sub.keyword.is_active else " (paused)"]
            lines.append(f"• #{sub.keyword_id} {esc(sub.keyword.display_name)}{''.join(flags)}")
    else:
        lines.append("Subscriptions: none yet. /keywords to choose.")
    pending = chat.notifications.pending().count()
    lines.append(f"Waiting to be sent: {pending}")
    recent = chat.notifications.filter(status=Notification.Status.SENT).select_related("ad").order_by("-sent_at")[:RECENT_SHOWN]
    if recent:
        lines.append("Last messages:")
        for n in recent:
            label = n.ad.title if n.ad_id else (n.text or "message")
            lines.append(f"• {_when(n.sent_at)} {esc(label[:80])}")
    return Reply("\n".join(lines))


def add(ref: ChatRef, args=()) -> Reply:
    if not settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS:
        return Reply("Adding keywords from the chat is turned off. Ask an admin to add it; /keywords lists the existing ones.")
    query = " ".join(args).strip()
    if not query:
        return Reply("What should Lago search for? Send /add &lt;search words&gt;, e.g. /add rennrad carbon.")
    if len(query) > QUERY_MAX:
        return Reply(f"That search is too long ({len(query)} characters, at most {QUERY_MAX}).")
    with transaction.atomic():
        keyword = Keyword.objects.create(query=query, is_active=False)
        from notifications.alerts import enqueue_admin_alert

        enqueue_admin_alert(f"keyword-proposed:{keyword.pk}", f"Chat {ref.chat_id} proposed keyword #{keyword.pk} “{query}”. "
                            "Activate it in the Django admin (Keywords).")
    return Reply(f"📝 Keyword #{keyword.pk} “{esc(query)}” is proposed. An admin must activate it; then /subscribe {keyword.pk}.")


# --- admin commands ------------------------------------------------------------------


def stats(ref: ChatRef, args=()) -> Reply:
    from tracker.stats import collect_stats

    s = collect_stats()
    runs = ", ".join(f"{k} {v}" for k, v in s["runs_24h"].items() if v) or "none"
    lines = [
        "<b>Lago stats</b> (last 24 h)",
        f"Keywords: {s['keywords']} ({s['active_keywords']} active)",
        f"Ads: {s['ads_indexed']} indexed, {s['ads_new_24h']} new, {s['price_drops_24h']} price drops",
        "Notifications: " + ", ".join(f"{st} {s[f'notifications_{st}']}" for st in Notification.Status.values),
        f"Runs: {esc(runs)}",
        f"HTTP 429: willhaben {s['http_429_24h']['willhaben']}, telegram {s['http_429_24h']['telegram']}",
    ]
    if s["overdue_keywords"]:
        lines.append("Overdue: " + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["overdue_keywords"][:10]))
    if s["zero_result_alerts"]:
        lines.append("Zero results: " + ", ".join(f"#{k['id']} {esc(k['name'])}" for k in s["zero_result_alerts"][:10]))
    return Reply("\n".join(lines))


def health(ref: ChatRef, args=()) -> Reply:
    from tracker.health import health_report

    report = health_report(grace=False)
    if report["status"] == "ok":
        lines = ["✅ <b>Lago is healthy</b>"]
    else:
        lines = [f"❌ <b>Unhealthy</b>: {esc(report['reason'])}"] + [f"• {esc(p)}" for p in report["problems"][1:]]
    queue = report.get("queue")
    if queue:
        lines.append(f"Queue: {queue['pending']} pending, {queue['dead']} dead")
    if report["sending_paused"]:
        lines.append("Sending is paused (no bot token).")
    return Reply("\n".join(lines))


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
    "stats": stats,
    "health": health,
}


# --- buttons -------------------------------------------------------------------------


def callback(ref: ChatRef, data: str) -> CallbackReply:
    """A button press in an active chat (the gate has run)."""
    action = keyboards.parse(data)
    if action is None:
        return CallbackReply("This button is no longer valid. Try /help.", alert=True)
    if action.name == "approve":
        return approve(ref, action.value)
    chat = _chat(ref)
    if action.name == "snooze":
        seconds = min(max(action.value, 60), 7 * 86400)
        chat.mute(timezone.now() + timedelta(seconds=seconds))
        return CallbackReply(f"💤 Snoozed for {describe(timedelta(seconds=seconds))}. /unmute ends it earlier.")
    keyword = Keyword.objects.filter(pk=action.value).first()
    if keyword is None:
        return CallbackReply("That keyword does not exist any more. /keywords lists the current ones.", alert=True)
    name = keyword.display_name
    if action.name == "mutekw":
        if not chat.mute_keyword(keyword.pk):
            return CallbackReply(f"You do not follow “{name}” any more.")
        return CallbackReply(f"🔕 “{name}” muted until /unmute.")
    if action.name == "sub":
        if not keyword.is_active:
            return CallbackReply(f"“{name}” is not active any more.", alert=True)
        chat.subscribe(keyword)
        toast = f"✅ Subscribed to “{name}”"
    else:
        chat.unsubscribe(keyword)
        toast = f"Unsubscribed from “{name}”"
    return CallbackReply(toast, edit_keyboard=True, keyboard=keywords(ref).keyboard)
