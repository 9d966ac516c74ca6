"""django-axes' glue: which address a login comes from, and which logins it throttles.

Settings in lago/settings.py ("Login throttling"); README explains them and `axes_reset`.
"""

import ipaddress

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _


def _valid(address):
    try:
        return str(ipaddress.ip_address(address.strip()))
    except (AttributeError, ValueError):
        return None


def client_ip(request):
    """The client's address: REMOTE_ADDR, or behind the TLS proxy (BEHIND_HTTPS_PROXY) the
    right-most X-Forwarded-For entry: the one the proxy appended itself. Entries left of it are
    whatever the client sent, and believing them would let a guesser pick a fresh address per
    try. Without the setting the header is ignored: anyone reaching gunicorn could send it."""
    if settings.BEHIND_HTTPS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        address = _valid(forwarded[-1])
        if address:
            return address
    return _valid(request.META.get("REMOTE_ADDR", ""))


class LoginThrottleBackend(AxesStandaloneBackend):
    """axes' lockout for logins over HTTP (the admin's login form).

    authenticate() without a request (the test client's login(), a shell) is not a guessing
    surface, and axes would raise on it: it passes on to ModelBackend unthrottled.
    """

    def authenticate(self, request=None, *args, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, *args, **kwargs)


def lockout_response(request, original_response=None, credentials=None):
    """The page a refused login gets (429): why, and for how long."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    context = {
        "title": _("Login refused"),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": minutes,
    }
    return render(request, "admin/lockout.html", context, status=429)
