"""A destination URL's password or token reaches no error-tracking envelope (the fake Sentry
ingest over real HTTP) and no log line, also where the generic URL redaction cannot see it (a
token alone in the user part)."""

import logging
from datetime import timedelta

import pytest
import sentry_sdk
from django.utils import timezone

from lago.error_tracking import init_error_tracking
from notifications import apprise_channel
from notifications.models import Notification
from notifications.sender import process_queue
from tests.factories import make_destination, make_notification
from tests.fakes.sentry import FakeSentry

pytestmark = pytest.mark.django_db

TOKEN = "tok3n-s3cret-ntfy"
# Past the longest backoff (16 minutes).
BACKOFF_MAX = timedelta(minutes=17)
logger = logging.getLogger("lago.test_destination_secrets")


@pytest.fixture
def ingest():
    server = FakeSentry().start()
    sentry_sdk.get_isolation_scope().clear_breadcrumbs()
    assert init_error_tracking(server.dsn, "test")
    yield server
    sentry_sdk.get_client().close(timeout=5)
    sentry_sdk.get_global_scope().set_client(None)
    sentry_sdk.get_isolation_scope().clear_breadcrumbs()
    server.stop()


def reach(url):
    raise ConnectionError(f"cannot reach {url}")  # the URL is a frame variable of the event


def test_no_envelope_and_no_log_line_carries_the_token(
    ingest, apprise_endpoint, time_machine, caplog
):
    time_machine.move_to(timezone.now())
    url = f"json://{TOKEN}@127.0.0.1:{apprise_endpoint.port}/hook"
    family = make_destination(title="family", apprise_url=url)
    apprise_endpoint.status = 500
    n = make_notification(chat=family)
    for _ in range(6):  # the sixth failure is logged at ERROR: an event
        process_queue()
        time_machine.move_to(timezone.now().replace(microsecond=0) + BACKOFF_MAX)
    n.refresh_from_db()
    assert n.status == Notification.Status.DEAD
    try:
        reach(url)
    except ConnectionError:
        logger.exception("delivery to %s failed", url)
    sentry_sdk.flush(timeout=5)

    events = ingest.events()
    assert len(events) >= 2  # the dead row, the exception
    assert [e for e in events if "family" in str(e)]
    assert not [body for body in ingest.raw if TOKEN.encode() in body]
    assert not [r for r in caplog.records if TOKEN in r.getMessage()]
    assert TOKEN not in n.last_error


@pytest.mark.parametrize(
    "url, secret",
    [
        ("json://user:pa55word@127.0.0.1:9/hook", "pa55word"),
        ("ntfys://tk_0123456789@ntfy.example.org/lago", "tk_0123456789"),
        ("discord://123456789012345678/AbCdEfGhIjKlMnOp", "AbCdEfGhIjKlMnOp"),
    ],
)
def test_an_error_text_is_scrubbed_of_the_urls_secrets(url, secret):
    text = f"POST to {url} failed: token {secret} refused"
    scrubbed = apprise_channel.scrub(text, url)
    assert secret not in scrubbed and "failed" in scrubbed
    assert secret not in apprise_channel.mask(url)
