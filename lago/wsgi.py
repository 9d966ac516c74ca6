"""WSGI entry point (gunicorn lago.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

from lago.startup import refuse_insecure_start
from lib.catalogues import ensure_compiled

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
# Before Django loads a catalogue (the image has them compiled; a bare checkout may not).
ensure_compiled()

application = get_wsgi_application()
refuse_insecure_start()
