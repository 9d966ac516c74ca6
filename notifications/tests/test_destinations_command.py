"""manage.py destinations: scripted setup, the URL masked in every output, clear errors."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from notifications.models import Destination, Subscription
from tests.factories import make_ad, make_keyword, make_notification
from tests.fakes.willhaben_factory import make_raw_ad

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("destinations", *args, stdout=out, stderr=err)
    return out.getvalue() + err.getvalue()


def test_add_subscribe_scrape_and_notify_reach_the_endpoint_once(
    apprise_endpoint, willhaben_server, settings, caplog, capsys
):
    settings.TELEGRAM_BOT_TOKEN = ""  # a household without Telegram
    keyword = make_keyword(query="rennrad")
    # The keyword ran before: what the scrape finds now is news.
    keyword.cursor_published_at = timezone.now() - timedelta(hours=1)
    keyword.cursor_ad_id = "1"
    keyword.save()
    url = apprise_endpoint.url("hook")
    outputs = [
        run("add", "family", url, "--language", "en"),
        run("subscribe", "family", str(keyword.pk)),
        run("list"),
    ]
    willhaben_server.set_ads(
        [make_raw_ad(title="Puch Clubman", price="1700", published=timezone.now())]
    )
    scrape, notify = StringIO(), StringIO()
    call_command("scrape", str(keyword.pk), stdout=scrape)
    call_command("notify", stdout=notify, stderr=notify)
    call_command("notify", stdout=notify, stderr=notify)
    outputs += [scrape.getvalue(), notify.getvalue(), *capsys.readouterr()]
    [post] = apprise_endpoint.posts
    assert "Puch Clubman" in post["title"] and "€ 1.700" in post["message"]
    assert "added family → json://user:****@127.0.0.1" in outputs[0]
    assert "family\tjson://user:****@" in outputs[2]
    assert not [o for o in outputs if "secret" in o]
    assert not [r for r in caplog.records if "secret" in r.getMessage()]


def test_add_refuses_a_bad_url_a_duplicate_and_an_unknown_language(apprise_endpoint):
    with pytest.raises(CommandError, match="knows no service"):
        run("add", "family", "foo://bar")
    with pytest.raises(CommandError, match="cannot read this json://"):
        run("add", "family", "json://")
    run("add", "family", apprise_endpoint.url())
    with pytest.raises(CommandError, match="exists") as exc:
        run("add", "family", apprise_endpoint.url("other"))
    assert "secret" not in str(exc.value)
    with pytest.raises(CommandError, match="invalid choice"):
        run("add", "other", apprise_endpoint.url(), "--language", "fr")
    assert Destination.objects.count() == 1


def test_add_dry_run_stores_nothing(apprise_endpoint):
    out = run("add", "family", apprise_endpoint.url(), "--dry-run")
    assert "is valid; not stored" in out and "secret" not in out
    assert not Destination.objects.exists()


def test_subscribe_with_rules_and_clear_errors(apprise_endpoint):
    run("add", "family", apprise_endpoint.url())
    keyword = make_keyword()
    run("subscribe", "family", str(keyword.pk), "drop", "10%")
    sub = Subscription.objects.get()
    assert (sub.drop_rule, sub.drop_value) == ("percent", 10)
    run("subscribe", "family", str(keyword.pk), "below", "500")
    sub.refresh_from_db()
    assert (sub.drop_rule, sub.drop_value) == ("below", 500)
    run("subscribe", "family", str(keyword.pk), "deal", "20%")
    sub.refresh_from_db()
    assert (sub.drop_rule, sub.drop_value) == ("deal", 20)
    with pytest.raises(CommandError, match="No keyword with id 999"):
        run("subscribe", "family", "999")
    with pytest.raises(CommandError, match="No destination named 'nobody'.*family"):
        run("subscribe", "nobody", str(keyword.pk))
    with pytest.raises(CommandError, match="A rule is"):
        run("subscribe", "family", str(keyword.pk), "sometimes")
    with pytest.raises(CommandError, match="between"):
        run("subscribe", "family", str(keyword.pk), "drop", "150")


def test_test_reports_success_and_the_services_error(apprise_endpoint):
    run("add", "family", apprise_endpoint.url())
    assert "test message sent to family" in run("test", "family")
    assert apprise_endpoint.posts[0]["title"] == "Test message from Lago"
    apprise_endpoint.status = 500
    with pytest.raises(CommandError, match="failed.*500") as exc:
        run("test", "family")
    assert "secret" not in str(exc.value)


def test_remove_deletes_the_destination_and_its_subscriptions(apprise_endpoint):
    run("add", "family", apprise_endpoint.url())
    run("subscribe", "family", str(make_keyword().pk))
    assert "would remove" in run("remove", "family", "--dry-run")
    assert "removed family" in run("remove", "family")
    assert not Destination.objects.exists() and not Subscription.objects.exists()
    with pytest.raises(CommandError, match="No destination named"):
        run("remove", "family")


def test_notify_dry_run_shows_destination_rows_and_sends_nothing(apprise_endpoint):
    run("add", "family", apprise_endpoint.url())
    n = make_notification(chat=Destination.objects.get(), ad=make_ad(title="Puch"))
    out = StringIO()
    call_command("notify", "--dry-run", stdout=out)
    text = out.getvalue()
    assert f"→ destination family: notification {n.pk}" in text and "Puch" in text
    assert "1 notification(s) would be sent" in text
    assert apprise_endpoint.posts == []
