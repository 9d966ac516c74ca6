"""ensure_admin creates the admin from the environment, but only with a password that passes the
validators."""

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("password", ["change-me", "12345678901", "password123"])
def test_a_weak_password_is_refused(monkeypatch, password):
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "ops")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", password)
    with pytest.raises(CommandError, match="DJANGO_SUPERUSER_PASSWORD is too weak") as error:
        call_command("ensure_admin")
    assert password not in str(error.value)
    assert not User.objects.exists()


def test_a_strong_password_creates_the_admin(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_USERNAME", "ops")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "tangerine-Orbit-4417")
    call_command("ensure_admin")
    assert User.objects.get(username="ops").is_superuser
