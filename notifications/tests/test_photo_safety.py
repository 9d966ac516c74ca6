"""Photos are web URLs only, and one row that crashes does not stop the batch (fake Bot API over
HTTP)."""

import pytest

from notifications.models import Notification
from notifications.sender import process_queue
from tests.factories import make_ad, make_chat, make_notification

pytestmark = pytest.mark.django_db


def refreshed(n):
    n.refresh_from_db()
    return n


@pytest.mark.parametrize("image_url", ["/etc/hostname", "file:///etc/hostname", "attach://photo"])
def test_an_image_url_that_is_no_web_url_is_sent_as_text_without_upload(telegram, image_url):
    n = make_notification(ad=make_ad(image_url=image_url))
    assert process_queue() == 1
    assert [m["method"] for m in telegram.messages] == ["sendMessage"]
    assert telegram.uploads == []
    assert refreshed(n).status == Notification.Status.SENT


def test_a_bad_image_url_does_not_stop_the_rows_after_it(telegram):
    first = make_notification(ad=make_ad(image_url="file:///etc/passwd"))
    second = make_notification(ad=make_ad(image_url="https://img.example/2.jpg"))
    assert process_queue() == 2
    assert {refreshed(first).status, refreshed(second).status} == {Notification.Status.SENT}
    assert telegram.uploads == []


def test_an_unexpected_error_fails_its_row_and_the_batch_goes_on(telegram):
    telegram.bad_results = 1  # Telegram answers "ok" with a result that is not a Message
    first = make_notification(chat=make_chat())
    second = make_notification(chat=make_chat())
    assert process_queue() == 1
    rows = sorted([refreshed(first), refreshed(second)], key=lambda n: n.status)
    assert [n.status for n in rows] == [Notification.Status.PENDING, Notification.Status.SENT]
    assert "unexpected error" in rows[0].last_error
