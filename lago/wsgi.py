"""WSGI entry point (gunicorn lago.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

from lago.startup import refuse_insecure_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")

application = get_wsgi_application()
refuse_insecure_start()
