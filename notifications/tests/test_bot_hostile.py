"""Hostile chat input: no leaks of hidden keywords, /add limited, odd digits answered clearly."""

import pytest
from django.urls import reverse

from notifications.models import Notification, Subscription
from notifications.tests.conftest import ADMIN, ALLOWED
from tests.factories import make_ad, make_chat, make_keyword, make_subscription
from tracker.models import Keyword

# English texts; the German default is tested in notifications/tests/test_i18n.py.
pytestmark = pytest.mark.usefixtures("english")


@pytest.fixture
def member(bot):
    return make_chat(chat_id=ALLOWED)


def test_unsubscribe_does_not_reveal_an_inactive_keywords_name(bot, member):
    hidden = make_keyword(name="Secret project", is_active=False)
    reply = bot.reply(ALLOWED, f"/unsubscribe {hidden.pk}")
    assert "Secret project" not in reply and f"no active keyword #{hidden.pk}" in reply
    # A chat that follows it may still leave it, by name.
    make_subscription(member, hidden)
    assert "Unsubscribed from" in bot.reply(ALLOWED, f"/unsubscribe {hidden.pk}")


@pytest.mark.parametrize("action", ["mutekw", "sub", "unsub"])
def test_buttons_do_not_reveal_an_inactive_keywords_name(bot, member, action):
    hidden = make_keyword(name="Secret project", is_active=False)
    answer = bot.press(ALLOWED, f"{action}:{hidden.pk}")
    assert "Secret project" not in answer["text"]
    assert not Subscription.objects.exists()


def test_add_is_limited_per_chat_and_day(bot, member, settings):
    settings.TELEGRAM_USERS_MAY_ADD_KEYWORDS = True
    settings.TELEGRAM_ADD_PER_DAY = 2
    assert "is proposed" in bot.reply(ALLOWED, "/add one")
    assert "is proposed" in bot.reply(ALLOWED, "/add two")
    assert "the most a chat may" in bot.reply(ALLOWED, "/add three")
    assert Keyword.objects.count() == 2
    assert (
        Notification.objects.filter(chat__chat_id=ADMIN, kind=Notification.Kind.ALERT).count() == 2
    )
    # Another chat has its own allowance.
    make_chat(chat_id=601)
    assert "is proposed" in bot.reply(601, "/add four")


@pytest.mark.parametrize(
    "text", ["/subscribe ²", "/unsubscribe ²", "/subscribe ٣", "/subscribe 99999999999999999999999"]
)
def test_unicode_digits_get_a_clear_reply(bot, member, text):
    reply = bot.reply(ALLOWED, text)
    assert "is not a keyword id" in reply or "no active keyword" in reply


@pytest.mark.parametrize("data", ["sub:²", "mutekw:²", "unsub:٣"])
def test_unicode_digits_in_button_data_are_no_error(bot, member, data):
    assert "no longer valid" in bot.press(ALLOWED, data)["text"]


@pytest.mark.parametrize("term", ["²", "٣", "9" * 30])
def test_admin_ad_search_with_odd_digits(admin_client, term):
    make_ad(title="bike")
    response = admin_client.get(reverse("admin:tracker_ad_changelist"), {"q": term})
    assert response.status_code == 200
