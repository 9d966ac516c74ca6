"""The admin index is a status page: health, queue, runs of 24 h, alerts, recent problems."""

import pytest
from django.urls import reverse

from operations.tests.conftest import ago

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def test_dashboard_shows_health_queue_runs_alerts_and_problems(
    admin_client, seeded, started_long_ago
):
    response = admin_client.get(reverse("admin:index"))
    html = response.content.decode()
    d = response.context["dashboard"]
    # Scheduler fresh, no bot token: healthy, with sending shown as paused.
    assert (d["health"]["status"], d["health"]["problems"], d["health"]["sending_paused"]) == (
        "ok",
        [],
        True,
    )
    assert "sending paused: no bot token" in html
    assert d["queue"] == {"pending": 2, "dead": 1, "oldest_pending_age_s": 600}
    assert '<a href="/admin/notifications/notification/?status__exact=dead">dead</a>' in html
    runs = {row["status"]: row["count"] for row in d["runs_24h"]}
    assert runs["skipped"] == 2 and runs["failed"] == 1 and runs["done"] == 3
    assert "/admin/scraping/scraperun/?status__exact=failed&amp;started_at__gte=" in html
    assert [a["name"] for a in d["alerts"]] == ["stuck"]
    assert f'href="/admin/tracker/keyword/{seeded.stuck.pk}/change/"' in html
    assert [p["run"].error for p in d["problem_runs"]] == [
        "concurrent_claim",
        "already_running",
        "http_429",
        "timeout",
    ]
    assert "/admin/scraping/scraperun/?status__in=failed%2Cbanned%2Cskipped" in html
    assert "Tracker" in html  # Django's app list is still there


def test_dashboard_links_lead_to_filtered_changelists(admin_client, seeded):
    d = admin_client.get(reverse("admin:index")).context["dashboard"]
    failed = next(row for row in d["runs_24h"] if row["status"] == "failed")
    runs = admin_client.get(failed["url"]).context["cl"].result_list
    assert [r.error for r in runs] == ["timeout"]
    problems = admin_client.get(d["problem_runs_url"]).context["cl"].result_list
    assert len(problems) == 4
    assert [k.name for k in admin_client.get(d["alerts_url"]).context["cl"].result_list] == [
        "stuck"
    ]


def test_unhealthy_verdict_names_the_reason(admin_client, db, clock, started_long_ago):
    from tracker.models import Heartbeat

    Heartbeat.objects.create(name="scheduler", last_seen_at=ago(hours=1))
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert (
        '<span class="lago-badge lago-red">unhealthy</span>'
        " <code>scheduler_stale_last_run_3600s</code>"
    ) in html


def test_lago_sections_come_first_and_the_task_queue_last(admin_client):
    apps = [
        app["app_label"] for app in admin_client.get(reverse("admin:index")).context["app_list"]
    ]
    assert apps[:3] == ["tracker", "notifications", "scraping"]
    assert apps[-1] == "django_q"
