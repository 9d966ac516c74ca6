"""Loaded with `-p tests.env_defaults` (pyproject addopts) before Django's settings.

The test run, and the child processes it starts (qcluster, gunicorn, runbot),
need a SECRET_KEY that is not the dev-only key, or Django's start-up check
refuses them with DEBUG off. `make test` sets one; a bare `pytest` gets this one.
Child processes also need the same key as the test process: django-q2 signs
tasks with it.
"""

import os

os.environ.setdefault("SECRET_KEY", "lago-test-only-secret-key")

# The message catalogues are build output (`make` compiles them): a bare `pytest` compiles
# the ones whose .po is newer than their .mo, so the German texts are what the tests see.
from lib.catalogues import compile_all  # noqa: E402

compile_all()
