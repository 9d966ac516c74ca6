"""Two processes tick at the same moment: every keyword is claimed exactly once."""

import json
import subprocess
import time

import pytest
from django.conf import settings

from scraping.models import ScrapeRun
from tests.factories import make_keyword
from tests.processes import PYTHON, child_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

CLAIMER = """
import json, time, django
django.setup()
from scraping.claims import claim_due_keywords
start_at = {start_at}
time.sleep(max(0, start_at - time.time()))
runs = claim_due_keywords()
print(json.dumps([r.keyword_id for r in runs]))
"""


def test_two_processes_claim_200_keywords_exactly_once():
    keyword_ids = {make_keyword().pk for _ in range(200)}
    start_at = time.time() + 3  # both children are imported and connected by then
    procs = [
        subprocess.Popen(
            [PYTHON, "-c", CLAIMER.format(start_at=start_at)],
            env=child_env(),
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    claimed = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        claimed.append(json.loads(out.strip().splitlines()[-1]))
    both = claimed[0] + claimed[1]
    assert sorted(both) == sorted(keyword_ids), "every keyword claimed exactly once"
    assert ScrapeRun.objects.filter(status="running").count() == 200
    assert (
        not ScrapeRun.objects.exclude(status__in=["running"])
        .exclude(error="concurrent_claim")
        .exists()
    )
