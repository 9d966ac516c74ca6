"""Every admin changelist and add page renders for a logged-in operator."""

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import make_ad, make_keyword, make_notification, make_subscription

pytestmark = pytest.mark.django_db

REGISTERED = sorted(
    (model._meta.app_label, model._meta.model_name) for model in admin.site._registry
)


@pytest.fixture
def seeded():
    kw = make_keyword(query="rtx 3080")
    sub = make_subscription(keyword=kw)
    make_notification(chat=sub.chat, ad=make_ad(title="RTX 3080 Founders Edition"))


@pytest.mark.parametrize("app_label,model_name", REGISTERED)
def test_changelist_renders(admin_client, seeded, app_label, model_name):
    response = admin_client.get(reverse(f"admin:{app_label}_{model_name}_changelist"))
    assert response.status_code == 200


# Rows only the machine writes (scrapes, the sender, django-q2): no add page for anyone.
MACHINE_WRITTEN = {
    ("tracker", "ad"),
    ("tracker", "pricechange"),
    ("tracker", "keywordad"),
    ("scraping", "scraperun"),
    ("tracker", "heartbeat"),
    ("notifications", "notification"),
    ("django_q", "success"),
    ("django_q", "failure"),
    ("django_q", "ormq"),
    # Schedules are made by setup_schedules only.
    ("django_q", "schedule"),
    # Login attempts, written by django-axes.
    ("axes", "accessattempt"),
    ("axes", "accesslog"),
    ("axes", "accessfailurelog"),
}


@pytest.mark.parametrize("app_label,model_name", REGISTERED)
def test_add_page_renders_or_is_refused_for_machine_written_models(
    admin_client, app_label, model_name
):
    response = admin_client.get(reverse(f"admin:{app_label}_{model_name}_add"))
    assert response.status_code == (403 if (app_label, model_name) in MACHINE_WRITTEN else 200)


def test_all_apps_have_their_models_registered():
    labels = {app for app, _ in REGISTERED}
    assert {"tracker", "scraping", "notifications"} <= labels


def test_anonymous_user_is_sent_to_login(client):
    response = client.get(reverse("admin:tracker_keyword_changelist"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
