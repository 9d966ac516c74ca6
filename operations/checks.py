"""System checks that explain misconfiguration at start-up."""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from lib.catalogues import stale_catalogues
from scraping.sources import registry

# Values copied from docs/.env.example, or keys too short to be secret, are refused like a missing
# key.
PLACEHOLDER_SECRETS = (
    "change-me",
    "changeme",
    "django-insecure-",
    "your-secret",
    "secret-key-here",
)
# Keys printed in this repository: `make test`'s (tests/env_defaults.py swaps it for a random one).
PUBLISHED_SECRETS = ("lago-test-only-secret-key",)
MIN_SECRET_KEY_LENGTH = 20
MIN_DISTINCT_CHARACTERS = 10


def _repeats(key):
    """Is `key` one shorter string repeated ("abcdeabcde")? It is iff it occurs in key+key
    anywhere but at the start and the end."""
    return key in (key + key)[1:-1]


def secret_key_problem(key):
    """Why `key` is no real secret (a sentence that never quotes it), or None."""
    if key == settings.DEV_SECRET_KEY:
        return "SECRET_KEY is not set and DEBUG is off."
    if key in PUBLISHED_SECRETS:
        return "SECRET_KEY is the published test key (from the Makefile) and DEBUG is off."
    if key != key.strip():
        return (
            "SECRET_KEY starts or ends with whitespace (a copy-and-paste slip?) and DEBUG is off."
        )
    if any(marker in key.lower() for marker in PLACEHOLDER_SECRETS):
        return "SECRET_KEY is a placeholder (as in .env.example) and DEBUG is off."
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return (
            f"SECRET_KEY is too short ({len(key)} characters; at least {MIN_SECRET_KEY_LENGTH}) "
            "and DEBUG is off."
        )
    if len(set(key)) < MIN_DISTINCT_CHARACTERS or _repeats(key):
        return (
            f"SECRET_KEY is too simple (a repeated pattern, or fewer than "
            f"{MIN_DISTINCT_CHARACTERS} different characters) and DEBUG is off."
        )
    return None


@register(Tags.security, deploy=False)
def check_secret_key(app_configs=None, **kwargs):
    problem = None if settings.DEBUG else secret_key_problem(settings.SECRET_KEY)
    if problem is None:
        return []
    return [
        Error(
            problem,
            hint="Set SECRET_KEY to a long random string "
            "(python -c 'import secrets; print(secrets.token_urlsafe(50))'), "
            "or set DEBUG=true for local development.",
            id="lago.E001",
        )
    ]


@register(Tags.security)
def check_stats_token(app_configs=None, **kwargs):
    if settings.DEBUG or settings.STATS_TOKEN:
        return []
    return [
        Warning(
            "STATS_TOKEN is not set and DEBUG is off: /stats and /metrics are open to anyone who "
            "can reach the web server.",
            hint="Set STATS_TOKEN to a long random string; "
            "scrapers then send Authorization: Bearer <token>.",
            id="lago.W010",
        )
    ]


@register()
def check_queue_timeouts(app_configs=None, **kwargs):
    q = settings.Q_CLUSTER
    if q["timeout"] < q["retry"]:
        return []
    return [
        Error(
            f"Q_TIMEOUT_S ({q['timeout']}) must be below Q_RETRY_S ({q['retry']}).",
            hint="Otherwise django-q2 hands a task that is still running to a second worker.",
            id="lago.E002",
        )
    ]


@register()
def check_scrape_time_budget(app_configs=None, **kwargs):
    budget, timeout = settings.SCRAPE_TIME_BUDGET_S, settings.Q_CLUSTER["timeout"]
    if 0 < budget < timeout:
        return []
    return [
        Error(
            f"SCRAPE_TIME_BUDGET_S ({budget}) must be above 0 and below Q_TIMEOUT_S ({timeout}).",
            hint="Otherwise django-q2 kills a slow scrape before it can record why it failed; "
            "leave room to store the pages.",
            id="lago.E006",
        )
    ]


@register()
def check_telegram_token(app_configs=None, **kwargs):
    if settings.TELEGRAM_BOT_TOKEN:
        return []
    return [
        Warning(
            "TELEGRAM_BOT_TOKEN is not set: notifications are queued but not sent.",
            hint="Create a bot with @BotFather and set TELEGRAM_BOT_TOKEN.",
            id="lago.W001",
        )
    ]


@register()
def check_zombie_threshold(app_configs=None, **kwargs):
    if settings.SCRAPE_ZOMBIE_MINUTES * 60 > settings.Q_CLUSTER["retry"]:
        return []
    return [
        Error(
            f"SCRAPE_ZOMBIE_MINUTES ({settings.SCRAPE_ZOMBIE_MINUTES} min) must exceed Q_RETRY_S "
            f"({settings.Q_CLUSTER['retry']} s).",
            hint="Otherwise a run that is still being scraped is reaped as a zombie "
            "and its keyword scraped twice.",
            id="lago.E003",
        )
    ]


@register()
def check_bot_poll_timeout(app_configs=None, **kwargs):
    poll, stale = settings.TELEGRAM_POLL_TIMEOUT_S, settings.HEALTHCHECK_BOT_STALE_S
    if 0 <= poll and poll + settings.TELEGRAM_TIMEOUT_S < stale / 2:
        return []
    return [
        Error(
            f"TELEGRAM_POLL_TIMEOUT_S ({poll}) plus TELEGRAM_TIMEOUT_S must stay below half of "
            f"HEALTHCHECK_BOT_STALE_S ({stale}).",
            hint="The bot heartbeat is written after each answered poll; "
            "a longer poll makes a working bot look stale.",
            id="lago.E004",
        )
    ]


@register()
def check_queue_broker(app_configs=None, **kwargs):
    if settings.Q_BROKER in settings.Q_BROKERS:
        return []
    return [
        Error(
            f"Q_BROKER={settings.Q_BROKER!r} is not a known task broker.",
            hint="Use Q_BROKER=orm (the database, the default) or Q_BROKER=redis with REDIS_URL=redis://host:6379/0.",
            id="lago.E005",
        )
    ]


@register()
def check_scrape_sources(app_configs=None, **kwargs):
    unknown = [slug for slug in settings.SCRAPE_SOURCES if slug not in registry.SOURCES]
    if not unknown and settings.SCRAPE_SOURCES:
        return []
    return [
        Error(
            f"SCRAPE_SOURCES names no source or unknown ones: {', '.join(unknown) or '(empty)'}.",
            hint=(
                f"Name sources the registry knows, comma-separated: {', '.join(registry.SOURCES)}."
            ),
            id="lago.E007",
        )
    ]


@register()
def check_catalogues(app_configs=None, **kwargs):
    """A missing or stale .mo means English (or old German) texts: manage.py and the WSGI entry
    point compile it at start, so this fires only where they could not (a read-only locale
    directory) or after the .po changed under a running process."""
    stale = [po for path in settings.LOCALE_PATHS for po in stale_catalogues(path)]
    if not stale:
        return []
    return [
        Warning(
            f"The message catalogue {po.with_suffix('.mo')} is missing or older than its .po: "
            "admin, bot and notifications fall back to English texts.",
            hint="Run `python -m lib.catalogues` (or `make run`) where the locale directory is "
            "writable, then restart.",
            id="lago.W020",
        )
        for po in stale
    ]
