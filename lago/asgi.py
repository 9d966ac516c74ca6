"""ASGI entry point (e.g. uvicorn lago.asgi:application)."""

import os

from django.core.asgi import get_asgi_application

from lago.startup import refuse_insecure_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")

application = get_asgi_application()
refuse_insecure_start()
