"""ASGI entry point (e.g. uvicorn lago.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

from lago.startup import refuse_insecure_start
from lib.catalogues import ensure_compiled

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
# Before Django loads a catalogue (the image has them compiled; a bare checkout may not).
ensure_compiled()

application = get_asgi_application()
refuse_insecure_start()
