"""Password guessing at /admin/login/: LOGIN_FAILURE_LIMIT wrong passwords in a row lock the
address and the username out for LOGIN_COOLOFF_MINUTES, the right password included."""

import logging
from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
LOGIN = reverse("admin:login")
PASSWORD = "the-right-Passw0rd-42"


@pytest.fixture(autouse=True)
def fast_hashing(settings):
    # Each attempt hashes a password: PBKDF2 would make every login here take a second.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def admin(db):
    return User.objects.create_superuser("boss", "boss@example.com", PASSWORD)


def login(client, username="boss", password=PASSWORD, ip="198.51.100.7", forwarded=None):
    extra = {"REMOTE_ADDR": ip}
    if forwarded:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    data = {"username": username, "password": password, "next": reverse("admin:index")}
    return client.post(LOGIN, data, **extra)


def logged_in(response):
    return response.status_code == 302 and response.url == reverse("admin:index")


def test_six_wrong_passwords_refuse_the_seventh_attempt_even_with_the_right_one(
    client, admin, caplog
):
    caplog.set_level(logging.WARNING)
    for _ in range(5):
        assert login(client, password="wrong").status_code == 200  # the form, with its error
    assert login(client, password="wrong").status_code == 429
    response = login(client)
    assert response.status_code == 429 and not logged_in(response)
    page = response.content.decode()
    assert "Login refused: 6 failed logins in a row" in page and "15 minutes" in page
    assert "_auth_user_id" not in client.session
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("Locking out" in line and "198.51.100.7" in line for line in warnings)


def test_the_right_password_works_again_after_the_cool_off(client, admin):
    for _ in range(6):
        login(client, password="wrong")
    with time_machine.travel(timezone.now() + timedelta(minutes=14)):
        assert login(client).status_code == 429
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        assert logged_in(login(client))


def test_a_few_wrong_passwords_then_the_right_one_log_in_and_reset_the_count(client, admin):
    for _ in range(5):
        login(client, password="wrong")
    assert logged_in(login(client))
    client.logout()
    for _ in range(5):
        login(client, password="wrong")
    assert logged_in(login(client))


def test_a_username_is_locked_out_whatever_the_address(client, admin):
    for n in range(6):
        login(client, password="wrong", ip=f"203.0.113.{n}")
    assert login(client, ip="192.0.2.1").status_code == 429


def test_the_forwarded_header_is_ignored_without_the_proxy_setting(client, admin):
    for n in range(6):
        login(client, username=f"guess{n}", password="wrong", forwarded=f"192.0.2.{n}")
    assert login(client, forwarded="192.0.2.99").status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.7"}


def test_behind_the_proxy_the_address_is_the_one_the_proxy_appended(client, admin, settings):
    settings.BEHIND_HTTPS_PROXY = True
    # Two clients behind the same proxy (REMOTE_ADDR): one guesser does not lock out the other.
    for n in range(6):
        login(client, username=f"guess{n}", password="wrong", forwarded="192.0.2.50")
    assert login(client, forwarded="192.0.2.50").status_code == 429
    assert logged_in(login(client, forwarded="192.0.2.60"))
    client.logout()
    # What the client itself put left of the proxy's entry changes nothing.
    for n in range(6):
        login(client, username=f"spoof{n}", password="wrong", forwarded=f"10.0.0.{n}, 192.0.2.70")
    assert login(client, forwarded="10.9.9.9, 192.0.2.70").status_code == 429


def test_lockouts_are_listed_in_the_admin_and_axes_reset_lifts_them(client, admin):
    for _ in range(6):
        login(client, password="wrong")
    viewer = Client()
    viewer.force_login(User.objects.create_superuser("ops", "ops@example.com", PASSWORD))
    page = viewer.get(reverse("admin:axes_accessattempt_changelist")).content.decode()
    assert "198.51.100.7" in page and "boss" in page
    assert login(client).status_code == 429
    call_command("axes_reset")
    assert logged_in(login(client))
