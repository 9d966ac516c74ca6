"""Loaded with `-p tests.env_defaults` (pyproject addopts) before Django's settings.

The test run, and the child processes it starts (qcluster, gunicorn, runbot),
need a SECRET_KEY that is not the dev-only key, or Django's start-up check
refuses them with DEBUG off. The run makes one up unless the environment brings its own.
Child processes also need the same key as the test process: django-q2 signs
tasks with it.
"""

import os
import secrets

# `make test`'s key is printed in the Makefile, so lago.E001 refuses it with DEBUG off: the run
# and the children it starts (with DEBUG off, as in production) share a random key instead.
if os.environ.get("SECRET_KEY", "lago-test-only-secret-key") == "lago-test-only-secret-key":
    os.environ["SECRET_KEY"] = secrets.token_urlsafe(50)

# The message catalogues are build output (`make` compiles them): a bare `pytest` compiles
# the ones whose .po is newer than their .mo, so the German texts are what the tests see.
from lib.catalogues import compile_all  # noqa: E402

compile_all()
