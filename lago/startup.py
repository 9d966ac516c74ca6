"""The guard every server entry point runs once Django is set up.

gunicorn (lago.wsgi) and an ASGI server (lago.asgi) run no system checks of their own: without
this guard they would serve with the dev SECRET_KEY (lago.E001) that manage.py refuses.
"""

from django.core import checks
from django.core.management.base import SystemCheckError


def refuse_insecure_start():
    """Raises SystemCheckError listing the serious security problems, if there are any."""
    errors = [e for e in checks.run_checks(tags=[checks.Tags.security]) if e.is_serious()]
    if errors:
        raise SystemCheckError("\n".join(str(e) for e in errors))
