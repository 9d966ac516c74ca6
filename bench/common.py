"""Shared set-up for the bench scripts: Django on a throwaway database.

A bench reads DATABASE_URL like the product. It never writes into that
database: on PostgreSQL it creates a sibling database `<name>_bench_<pid>` on
the same server (dropped at exit); on SQLite (no DATABASE_URL) it uses a
temporary file. Child processes (qcluster, gunicorn) get the same URL from
`child_env()`.
"""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
# The benches import the project (and its test fakes) before Django is set up.
sys.path.insert(0, str(REPO))


def setup_django(**env):
    """Points Django at a fresh database, migrates it, and returns a description of it."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.update({k: str(v) for k, v in env.items()})
    url = os.environ.get("DATABASE_URL", "")
    os.environ["DATABASE_URL"] = (
        _bench_postgres(url) if url.startswith("postgres") else _bench_sqlite()
    )
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from django.conf import settings

    return "postgresql" if settings.IS_POSTGRES else "sqlite"


def child_env(**extra):
    """The environment for a child process of the bench (same database and settings)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _bench_sqlite():
    folder = tempfile.mkdtemp(prefix="lago-bench-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return f"sqlite:///{folder}/bench.sqlite3"


def _bench_postgres(url):
    import psycopg

    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/') or 'lago'}_bench_{os.getpid()}"
    admin_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    atexit.register(_drop_postgres, admin_url, name)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _drop_postgres(admin_url, name):
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def peak_rss_mb(pid):
    """Peak resident memory (VmHWM) of a process, in MB; None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        return None
    return None


def seed_notifications(chat_id_base, chats, per_chat):
    """`chats` active bench chats from `chat_id_base`, `per_chat` new-ad notifications each, queued
    chat-major: the worst case for a sender that does not interleave chats."""
    from decimal import Decimal

    from notifications.models import Notification, TelegramChat
    from tracker.models import Ad

    rows = TelegramChat.objects.bulk_create(
        [
            TelegramChat(
                chat_id=chat_id_base + i, status=TelegramChat.Status.ACTIVE, title=f"bench {i}"
            )
            for i in range(chats)
        ]
    )
    ads = Ad.objects.bulk_create(
        [
            Ad(
                source="bench",
                external_id=str(i),
                title=f"Bench ad {i}",
                price=Decimal(100 + i),
                url=f"https://example.invalid/ad/{i}",
            )
            for i in range(chats * per_chat)
        ]
    )
    Notification.objects.bulk_create(
        [
            Notification(
                chat=rows[i // per_chat], ad=ad, kind=Notification.Kind.NEW, price=ad.price
            )
            for i, ad in enumerate(ads)
        ]
    )


def start_cluster(log):
    """A real `manage.py qcluster` with the product's schedules (setup_schedules), its output to
    `log`."""
    subprocess.run(
        [sys.executable, "manage.py", "setup_schedules", "-v", "0"],
        env=child_env(),
        cwd=REPO,
        check=True,
    )
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        env=child_env(PYTHONUNBUFFERED=1),
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop_cluster(proc):
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
