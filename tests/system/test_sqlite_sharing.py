"""web, qcluster and bot share one SQLite file: WAL + IMMEDIATE + busy timeout
must let several processes write at once without "database is locked"."""

import subprocess
import sys

import pytest
from django.conf import settings

from tests.processes import child_env

WRITER = """
import django
django.setup()
from django.db import transaction
from tracker.models import Heartbeat
for i in range(150):
    with transaction.atomic():
        Heartbeat.beat("writer-{n}", detail=str(i))
        Heartbeat.objects.filter(name="writer-{n}").update(detail="done")
print("ok")
"""


@pytest.fixture
def sqlite_file_env(sqlite_database):
    return child_env(database=sqlite_database)


def test_the_file_database_runs_in_wal_mode(sqlite_file_env):
    probe = (
        "from django.db import connection; c = connection.cursor();"
        " c.execute('PRAGMA journal_mode'); print(c.fetchone()[0])"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", probe],
        env=sqlite_file_env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip().splitlines()[-1] == "wal"


def test_three_processes_write_at_once_without_locking_errors(sqlite_file_env):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER.format(n=n)],
            env=sqlite_file_env,
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err[-2000:]
        assert out.strip() == "ok"
