"""How every server entry point (lago.wsgi, lago.asgi) starts.

gunicorn and ASGI servers run no system checks of their own: without the guard below they would
serve with the dev SECRET_KEY (lago.E001) that manage.py refuses. A bare checkout may have no
compiled catalogue yet: it is compiled before Django loads one.
"""

import os

from django.core import checks
from django.core.management.base import SystemCheckError

from lib.catalogues import ensure_compiled


def start(get_application):
    """The application `get_application` builds, once the catalogue is compiled and the security
    checks pass."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
    ensure_compiled()
    application = get_application()
    refuse_insecure_start()
    return application


def refuse_insecure_start():
    """Raises SystemCheckError listing the serious security problems, if there are any."""
    errors = [e for e in checks.run_checks(tags=[checks.Tags.security]) if e.is_serious()]
    if errors:
        raise SystemCheckError("\n".join(str(e) for e in errors))
