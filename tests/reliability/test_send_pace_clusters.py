"""Issue 16: two senders on one bot keep one pace together, on each broker's store.

Two sender processes (each `process_queue()` in a loop, as two clusters' ticks would)
drain one outbox of 360 messages to 120 chats at the same moment. The fake Bot API
enforces Telegram's limits — 30 messages in any second overall, one per second per
chat — and answers 429 with retry_after beyond them. Each process alone paces at
TELEGRAM_MAX_PER_SECOND=25, so without a shared pace the two together send up to
50/s and meet 429s (the control test shows the scenario does); with the shared pace
(the default) they meet none, and every notification goes out exactly once.
"""

import time
from decimal import Decimal

import pytest
from django.conf import settings

from notifications.models import Notification, TelegramChat
from tests.processes import child_env, run_shell_scripts, sender_loop
from tracker.models import Ad

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(180),
]

CHATS, PER_CHAT = 120, 3
ROWS = CHATS * PER_CHAT
SENDERS = 2


def _seed():
    chats = TelegramChat.objects.bulk_create(
        TelegramChat(chat_id=70_000 + i, status=TelegramChat.Status.ACTIVE) for i in range(CHATS)
    )
    ads = Ad.objects.bulk_create(
        Ad(
            source="willhaben",
            external_id=str(900_000 + i),
            title=f"Paced ad {i}",
            price=Decimal(100 + i),
            url=f"https://example.invalid/{i}",
        )
        for i in range(ROWS)
    )
    # Chat-major: each chat's rows are due together, so both senders want the same chats at once.
    Notification.objects.bulk_create(
        Notification(chat=chats[i // PER_CHAT], ad=ad, kind=Notification.Kind.NEW, price=ad.price)
        for i, ad in enumerate(ads)
    )


def _send_concurrently(telegram, **env):
    env = child_env(
        TELEGRAM_BOT_TOKEN=telegram.token,
        TELEGRAM_API_BASE_URL=telegram.base_url,
        TELEGRAM_MAX_PER_SECOND=25,
        SECRET_KEY=settings.SECRET_KEY,
        LOG_LEVEL="WARNING",
        PACE_START_AT=time.time() + 8,  # both are up by then: they start sending together
        **env,
    )
    run_shell_scripts(sender_loop(90), env, SENDERS, timeout=150)
    sends = [m["at"] for m in telegram.messages]
    return len(sends) / (max(sends) - min(sends)) if len(sends) > 1 else 0.0


def _per_notification(telegram):
    counts = {}
    for m in telegram.messages:
        counts[(m["chat_id"], m["text"] or m["caption"])] = (
            counts.get((m["chat_id"], m["text"] or m["caption"]), 0) + 1
        )
    return counts


def test_two_senders_share_one_pace_and_meet_no_429(broker, telegram, report):
    telegram.rate_limit(overall=30, per_chat=1)
    _seed()
    rate = _send_concurrently(telegram, **broker)

    assert telegram.count_429 == 0, f"{telegram.count_429} × 429 with the shared pace"
    per_notification = _per_notification(telegram)
    assert len(per_notification) == ROWS, f"{len(per_notification)} of {ROWS} notifications arrived"
    assert set(per_notification.values()) == {1}, "a notification was sent twice"
    assert set(Notification.objects.values_list("status", flat=True)) == {"sent"}
    report(
        broker=broker["Q_BROKER"],
        senders=SENDERS,
        messages=len(telegram.messages),
        http_429=telegram.count_429,
        msgs_per_s=round(rate, 1),
    )


@pytest.mark.parametrize("broker", ["orm"], indirect=True)
def test_control_the_same_senders_pacing_each_process_alone_meet_429s(broker, telegram, report):
    """Without the shared pace the scenario above is over Telegram's limits: the test has teeth."""
    telegram.rate_limit(overall=30, per_chat=1)
    _seed()
    _send_concurrently(telegram, TELEGRAM_SHARED_PACE=False, **broker)

    assert telegram.count_429 > 0
    assert set(_per_notification(telegram).values()) == {1}  # 429s are retried, never duplicated
    report(broker=broker["Q_BROKER"], shared_pace=False, http_429=telegram.count_429)
