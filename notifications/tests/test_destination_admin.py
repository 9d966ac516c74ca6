"""Apprise destinations in the admin: the URL validated by Apprise, never shown back in clear."""

import pytest
from django.urls import reverse

from notifications.models import Destination, Subscription, TelegramChat
from tests.factories import keyword_form, make_chat, make_destination, make_keyword

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

LIST = reverse("admin:notifications_destination_changelist")
ADD = reverse("admin:notifications_destination_add")


def form(**changes):
    data = {
        "title": "family",
        "apprise_url": "json://user:secret@127.0.0.1:9/hook",
        "language": "en",
        "status": "active",
        "quiet_start": "",
        "quiet_end": "",
        "time_zone": "",
        "muted_until_0": "",
        "muted_until_1": "",
        "subscriptions-TOTAL_FORMS": "0",
        "subscriptions-INITIAL_FORMS": "0",
    }
    return {**data, **changes}


def test_add_stores_the_url_and_shows_it_masked(admin_client):
    response = admin_client.post(ADD, form())
    assert response.status_code == 302, response.content.decode()[:2000]
    destination = Destination.objects.get()
    assert destination.apprise_url == "json://user:secret@127.0.0.1:9/hook"
    assert destination.channel == TelegramChat.Channel.APPRISE
    assert destination.chat_id is None
    pages = [
        admin_client.get(LIST),
        admin_client.get(reverse("admin:notifications_destination_change", args=[destination.pk])),
    ]
    for page in pages:
        html = page.content.decode()
        assert "secret" not in html
        assert "json://user:****@127.0.0.1:9/hook" in html


@pytest.mark.parametrize(
    "url",
    ["nonsense", "foo://bar", "json://", "mailto://"],
)
def test_an_url_apprise_refuses_is_a_form_error(admin_client, url):
    response = admin_client.post(ADD, form(apprise_url=url))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["apprise_url"]
    assert not Destination.objects.exists()
    assert f'value="{url}' not in response.content.decode()  # a password field renders empty


def test_an_empty_url_on_change_keeps_the_stored_one(admin_client):
    destination = make_destination(title="family", apprise_url="json://u:pw12@127.0.0.1:9/x")
    url = reverse("admin:notifications_destination_change", args=[destination.pk])
    response = admin_client.post(url, form(apprise_url="", title="family 2"))
    assert response.status_code == 302, response.content.decode()[:2000]
    destination.refresh_from_db()
    assert (destination.title, destination.apprise_url) == (
        "family 2",
        "json://u:pw12@127.0.0.1:9/x",
    )


def test_destinations_are_not_chats_and_chats_are_not_destinations(admin_client):
    make_destination(title="family")
    make_chat(title="a telegram chat")
    chats = admin_client.get(reverse("admin:notifications_telegramchat_changelist")).content
    destinations = admin_client.get(LIST).content
    assert b"a telegram chat" in chats and b"family" not in chats
    assert b"family" in destinations and b"a telegram chat" not in destinations


def test_send_test_message_reports_success_and_the_services_error(admin_client, apprise_endpoint):
    good = make_destination(title="good", apprise_url=apprise_endpoint.url("good"))
    bad = make_destination(title="bad", apprise_url=apprise_endpoint.url("bad"))
    response = admin_client.post(
        LIST, {"action": "send_test_message", "_selected_action": [good.pk]}, follow=True
    )
    assert "Test message sent to good" in response.content.decode()
    assert apprise_endpoint.posts[0]["path"] == "/good"
    apprise_endpoint.status = 500
    response = admin_client.post(
        LIST, {"action": "send_test_message", "_selected_action": [bad.pk]}, follow=True
    )
    html = response.content.decode()
    assert "Test message to bad failed" in html and "500" in html
    assert "secret" not in html
    bad.refresh_from_db()
    assert "500" in bad.last_error and "secret" not in bad.last_error


def test_subscriptions_inline_on_the_destination_and_the_keyword_page(admin_client):
    keyword = make_keyword(query="rennrad")
    destination = make_destination(title="family")
    response = admin_client.post(
        ADD.replace("add/", f"{destination.pk}/change/"),
        form(
            title="family",
            apprise_url="",
            **{
                "subscriptions-TOTAL_FORMS": "1",
                "subscriptions-0-keyword": str(keyword.pk),
                "subscriptions-0-drop_rule": "percent",
                "subscriptions-0-drop_value": "10",
            },
        ),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    subscription = Subscription.objects.get()
    assert (subscription.chat_id, subscription.drop_rule) == (destination.pk, "percent")
    page = admin_client.get(reverse("admin:tracker_keyword_change", args=[keyword.pk]))
    html = page.content.decode()
    assert "destination subscriptions" in html.lower() or "Destination subscriptions" in html
    assert f'<option value="{destination.pk}" selected>family</option>' in html

    # The keyword page adds a destination's subscription through its own inline.
    other = make_keyword(query="ski")
    data = keyword_form(
        query="ski",
        **{
            "subscriptions-2-TOTAL_FORMS": "1",
            "subscriptions-2-0-chat": str(destination.pk),
            "subscriptions-2-0-drop_rule": "below",
            "subscriptions-2-0-drop_value": "0",
        },
    )
    response = admin_client.post(reverse("admin:tracker_keyword_change", args=[other.pk]), data)
    assert response.status_code == 200  # the drop rule's range check, as for a chat
    assert "target price" in response.content.decode()
    data["subscriptions-2-0-drop_value"] = "500"
    response = admin_client.post(reverse("admin:tracker_keyword_change", args=[other.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Subscription.objects.filter(chat=destination, keyword=other, drop_rule="below").exists()
