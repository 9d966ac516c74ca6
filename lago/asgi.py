"""ASGI entry point (e.g. uvicorn lago.asgi:application)."""

from django.core.asgi import get_asgi_application

from lago.startup import start

application = start(get_asgi_application)
