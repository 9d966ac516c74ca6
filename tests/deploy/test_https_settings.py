"""BEHIND_HTTPS_PROXY / SECURE_HSTS_SECONDS: the settings for running behind a TLS proxy."""

import json
import os

from tests.processes import run_python

SHOW = (
    "import django, json; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([s.SECURE_PROXY_SSL_HEADER,"
    " s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS]))"
)


def https_settings(**env_vars):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lago.settings", **env_vars}
    return json.loads(run_python(SHOW, env, check=True).stdout)


def test_off_by_default_so_plain_http_make_run_keeps_its_cookies():
    assert https_settings() == [None, False, False, 0]


def test_behind_a_tls_proxy_cookies_are_secure_and_the_forwarded_proto_is_trusted():
    assert https_settings(BEHIND_HTTPS_PROXY="true", SECURE_HSTS_SECONDS="31536000") == [
        ["HTTP_X_FORWARDED_PROTO", "https"],
        True,
        True,
        31536000,
    ]
