"""WSGI entry point (gunicorn lago.wsgi)."""

from django.core.wsgi import get_wsgi_application

from lago.startup import start

application = start(get_wsgi_application)
