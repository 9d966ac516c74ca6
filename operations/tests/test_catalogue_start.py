"""A checkout started without `make` speaks German: manage.py compiles a missing or stale
catalogue before Django loads it, and `check` warns (lago.W020) when one is still missing or
stale."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from django.conf import settings

from lib.catalogues import ensure_compiled, is_stale
from operations.checks import check_catalogues
from tests.processes import child_env, copy_project

PO = settings.BASE_DIR / "locale" / "de" / "LC_MESSAGES" / "django.po"
# What `manage.py migrate` and a send need; tests, build output and databases stay behind.
PROJECT = ["manage.py", "lago", "lib", "tracker", "notifications", "scraping", "operations"]
PROJECT += ["templates", "locale"]


@pytest.fixture
def locale_dir(tmp_path):
    """A locale directory with the German .po and no .mo, as a fresh clone has it."""
    messages = tmp_path / "locale" / "de" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    shutil.copy(PO, messages / "django.po")
    return tmp_path / "locale"


def test_a_missing_catalogue_is_compiled_once(locale_dir):
    po = locale_dir / "de" / "LC_MESSAGES" / "django.po"
    assert is_stale(po)
    assert ensure_compiled(locale_dir) == [po]
    assert not is_stale(po) and po.with_suffix(".mo").exists()
    assert ensure_compiled(locale_dir) == []


def test_a_catalogue_older_than_its_po_is_compiled_again(locale_dir):
    po = locale_dir / "de" / "LC_MESSAGES" / "django.po"
    ensure_compiled(locale_dir)
    mo_time = po.with_suffix(".mo").stat().st_mtime
    os.utime(po, (mo_time + 10, mo_time + 10))
    assert is_stale(po)
    assert ensure_compiled(locale_dir) == [po]


def test_a_catalogue_that_cannot_be_written_does_not_stop_the_start(locale_dir, caplog):
    po = locale_dir / "de" / "LC_MESSAGES" / "django.po"
    # A directory where the .mo belongs: unwritable even for root (a read-only image is not).
    po.with_suffix(".mo").mkdir()
    later = po.with_suffix(".mo").stat().st_mtime + 10
    os.utime(po, (later, later))
    assert ensure_compiled(locale_dir) == []
    assert "cannot compile the message catalogue" in caplog.text and str(po) in caplog.text


def test_check_warns_while_the_catalogue_is_missing_or_stale(locale_dir, settings):
    settings.LOCALE_PATHS = [locale_dir]
    warnings = check_catalogues()
    assert [w.id for w in warnings] == ["lago.W020"]
    assert "django.mo" in warnings[0].msg and "python -m lib.catalogues" in warnings[0].hint
    ensure_compiled(locale_dir)
    assert check_catalogues() == []


SEND_A_NEW_AD = textwrap.dedent(
    """
    from decimal import Decimal
    from django.utils import timezone
    from notifications.models import Notification, TelegramChat
    from notifications.sender import process_queue
    from tracker.models import Ad, Keyword

    keyword = Keyword.objects.create(query="rennrad")
    ad = Ad.objects.create(
        source="willhaben", external_id="673", title="Rennrad Carbon", price=Decimal("673.59"),
        url="https://www.willhaben.at/iad/object?adId=673", published_at=timezone.now(),
    )
    chat = TelegramChat.objects.create(chat_id=4242, status=TelegramChat.Status.ACTIVE)
    Notification.objects.create(
        chat=chat, ad=ad, keyword=keyword, kind=Notification.Kind.NEW, price=ad.price
    )
    print("sent", process_queue())
    """
)


def test_a_fresh_checkout_started_with_migrate_sends_german(tmp_path, telegram_server):
    """The done-when of a start without `make`: a copy of the project without any .mo, then
    `manage.py migrate`, then a new-ad notification through the fake Bot API."""
    project = tmp_path / "lago"
    project.mkdir()
    copy_project(project, PROJECT)
    mo = project / "locale" / "de" / "LC_MESSAGES" / "django.mo"
    assert not mo.exists()
    env = child_env(
        database=tmp_path / "db.sqlite3",
        PYTHONPATH=project,
        LANGUAGE_CODE="de-at",
        TELEGRAM_BOT_TOKEN=telegram_server.token,
        TELEGRAM_API_BASE_URL=telegram_server.base_url,
    )
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0"], env=env, cwd=project, check=True)
    assert mo.exists()

    shell = subprocess.run(
        [*manage, "shell", "-c", SEND_A_NEW_AD],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert "sent 1" in shell.stdout, shell.stderr
    text = telegram_server.texts(4242)[-1]
    assert "€ 673,59" in text and "Neue Anzeige" in text
