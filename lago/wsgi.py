"""WSGI entry point (gunicorn lago.wsgi)."""

import os

from django.core import checks
from django.core.management.base import SystemCheckError
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")

application = get_wsgi_application()

# gunicorn runs no system checks: refuse to serve with a missing SECRET_KEY (lago.E001) as manage.py
# would.
_errors = [e for e in checks.run_checks(tags=[checks.Tags.security]) if e.is_serious()]
if _errors:
    raise SystemCheckError("\n".join(str(e) for e in _errors))
