"""Optional error tracking: with SENTRY_DSN set, ERROR log lines and uncaught
exceptions are sent to Sentry, or to GlitchTip (same protocol, any host in the DSN).

INFO and WARNING lines only travel as breadcrumbs of a later event. No personal data (sentry-sdk's
default, `send_default_pii` off: no user, IP address, cookies), and every string of an event or
breadcrumb (messages, exception values, stack-frame variables, URLs) goes through the log redaction
(lib.log_filters): the bot token and proxy credentials never leave the process.
"""

import logging

import sentry_sdk
from sentry_sdk.integrations.logging import LoggingIntegration

from lib.log_filters import redact_data


def scrub_event(event, hint):
    return redact_data(event)


def scrub_breadcrumb(crumb, hint):
    return redact_data(crumb)


def init_error_tracking(dsn, environment="production"):
    """Starts the client when `dsn` is set (from lago/settings.py); True when it did."""
    if not dsn:
        return False
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        # No personal data: left at sentry-sdk's default (off). Passing send_default_pii=False
        # says the same but is deprecated since 2.7x in favour of `data_collection`.
        integrations=[LoggingIntegration(level=logging.INFO, event_level=logging.ERROR)],
        before_send=scrub_event,
        before_breadcrumb=scrub_breadcrumb,
    )
    return True
