"""Lago settings: everything comes from the environment (see README, "Configuration").

Every variable has a default that works for local use; `make run` needs none.
Parsing is strict: `DEBUG=yes-please` is an error, not False.
"""

from datetime import timedelta
from pathlib import Path

from django.utils.translation import gettext_lazy

from lago.env import read_env, secret
from lago.logging_config import check_log_format, logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

# Only for DEBUG runs; operations.checks refuses to start without a real key otherwise.
DEV_SECRET_KEY = "lago-dev-only-insecure-secret-key"

env = read_env(BASE_DIR / ".env")

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = secret("SECRET_KEY", default=DEV_SECRET_KEY)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# HTTPS behind a TLS-terminating proxy (README "Running in production" lists the values for
# `manage.py check --deploy`). Off by default so `make run` works over plain http.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
# Container healthchecks call these over plain http from inside: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^health$", r"^metrics$"]
# One switch behind a TLS reverse proxy (docs/operations.md): the three settings below default to
# it.
BEHIND_HTTPS_PROXY = env.bool("BEHIND_HTTPS_PROXY", default=False)
# true: trust the proxy's X-Forwarded-Proto: https (only behind a proxy that sets it).
_TRUST_PROXY = env.bool("SECURE_PROXY_SSL_HEADER", default=BEHIND_HTTPS_PROXY)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if _TRUST_PROXY else None
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=BEHIND_HTTPS_PROXY)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=BEHIND_HTTPS_PROXY)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)

INSTALLED_APPS = [
    "operations.apps.LagoAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "operations.apps.TaskQueueConfig",  # django_q with a translated admin heading
    "axes",
    # Lago's apps, lowest layer first; each imports only the ones above it in this list.
    "tracker",
    "notifications",
    "scraping",
    "operations",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files from STATIC_ROOT without a separate web server (DEBUG off); after
    # SecurityMiddleware.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes requires: turns a refused login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "lago.urls"
WSGI_APPLICATION = "lago.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------

DEFAULT_SQLITE_PATH = VAR_DIR / "lago.sqlite3"
DATABASES = {
    "default": env.db_url_config(secret("DATABASE_URL", default=f"sqlite:///{DEFAULT_SQLITE_PATH}"))
}
DB_ENGINE = DATABASES["default"]["ENGINE"]
# Kept across requests on SQLite too: a connect costs more CPU than all of /health's queries.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
IS_SQLITE = DB_ENGINE.endswith("sqlite3")
IS_POSTGRES = DB_ENGINE.endswith("postgresql")

if IS_SQLITE:
    if DATABASES["default"]["NAME"] == str(DEFAULT_SQLITE_PATH):
        VAR_DIR.mkdir(exist_ok=True)
    # web, qcluster and bot share one file: WAL lets readers run beside the
    # writer, IMMEDIATE takes the write lock at BEGIN so two writers queue on
    # the busy timeout instead of failing with "database is locked".
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("SQLITE_BUSY_TIMEOUT_S", default=20),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
elif IS_POSTGRES:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DB_CONNECT_TIMEOUT_S", default=5)
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Time: store UTC, display Vienna --------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The admin's language and formats: Austrian German by default ("en-us" for English).
LANGUAGE_CODE = env.str("LANGUAGE_CODE", default="de-at")
# The languages Lago speaks (a catalogue in locale/, or the English msgids): the choices of a
# chat's language.
LANGUAGES = [("de", gettext_lazy("German")), ("en", gettext_lazy("English"))]
USE_I18N = True
# locale/de: the German texts of the bot, the notifications and the admin (de-at falls back to de).
# Compiled by `make` (python -m lib.catalogues); a chat's own language: TelegramChat.language.
LOCALE_PATHS = [BASE_DIR / "locale"]
# Dates as 03.12.2026 09:24 (lago/formats/de): Django's German long format spells out the month.
FORMAT_MODULE_PATH = ["lago.formats"]
USE_TZ = True
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Vienna")

STATIC_URL = "static/"
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")

# --- django-q2 --------------------------------------------------------------

# `timeout` bounds one task (the longest scrape: SCRAPE_MAX_PAGES pages with
# retries); `retry` must be larger or a task still running is handed out again.
Q_TIMEOUT_S = env.int("Q_TIMEOUT_S", default=240)
Q_RETRY_S = env.int("Q_RETRY_S", default=300)
Q_CLUSTER = {
    "name": "lago",
    "workers": env.int("Q_WORKERS", default=2),
    "timeout": Q_TIMEOUT_S,
    "retry": Q_RETRY_S,
    "max_attempts": 1,
    "catch_up": False,
    "save_limit": 500,
    "ack_failures": True,
    "poll": 0.5,
    "label": "Task queue",
}
# The broker: "orm" (the database; zero config) or "redis" (REDIS_URL). Several
# clusters on several hosts may share either; operations.checks rejects other values.
Q_BROKER = env.str("Q_BROKER", default="orm").strip().lower()
Q_BROKERS = ("orm", "redis")
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
if Q_BROKER == "redis":
    # django-q2 passes a string to redis.from_url() (redis://, rediss://, unix://).
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# --- Scraping (scraping app) ----------------------------------------------

WILLHABEN_BASE_URL = env.str("WILLHABEN_BASE_URL", default="https://www.willhaben.at")

# The shared HTTP client (scraping.http): one keep-alive pool per process.
HTTP_MAX_CONNECTIONS = env.int("HTTP_MAX_CONNECTIONS", default=10)
HTTP_MAX_KEEPALIVE_CONNECTIONS = env.int("HTTP_MAX_KEEPALIVE_CONNECTIONS", default=5)
HTTP_KEEPALIVE_EXPIRY = env.float("HTTP_KEEPALIVE_EXPIRY", default=30.0)
HTTP_TIMEOUT = env.float("HTTP_TIMEOUT", default=15.0)
# Not HTTP_PROXY: httpx and others read that standard name on their own (the Bot API client must
# not).
SCRAPE_PROXY_URL = env.str("SCRAPE_PROXY_URL", default="")
HTTP_USER_AGENT = env.str(
    "HTTP_USER_AGENT",
    default="Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
)
# Retries on timeouts, connection errors, 5xx and 429 (a request is tried at most 1 + HTTP_RETRIES
# times).
HTTP_RETRIES = env.int("HTTP_RETRIES", default=3)
HTTP_BACKOFF_BASE_S = env.float("HTTP_BACKOFF_BASE_S", default=1.0)
HTTP_BACKOFF_MAX_S = env.float("HTTP_BACKOFF_MAX_S", default=30.0)
# A Retry-After longer than this is not waited for: the run ends `banned` instead.
HTTP_RETRY_AFTER_MAX_S = env.float("HTTP_RETRY_AFTER_MAX_S", default=60.0)
SCRAPE_MIN_REQUEST_GAP_MS = env.int("SCRAPE_MIN_REQUEST_GAP_MS", default=500)

SCRAPE_ROWS = env.int("SCRAPE_ROWS", default=30)
SCRAPE_MAX_PAGES = env.int("SCRAPE_MAX_PAGES", default=2)
# Bytes of one marketplace response after decompression; over it the run fails as too_large.
SCRAPE_MAX_RESPONSE_BYTES = env.int("SCRAPE_MAX_RESPONSE_BYTES", default=20_000_000)
NOTIFY_ON_FIRST_RUN = env.bool("NOTIFY_ON_FIRST_RUN", default=False)
# Deep sweeps: every keyword is read past its cursor every SCRAPE_SWEEP_HOURS, up to
# SCRAPE_SWEEP_MAX_PAGES pages at the source's largest page size (willhaben: 200 rows).
SCRAPE_SWEEP_HOURS = env.int("SCRAPE_SWEEP_HOURS", default=6)
SCRAPE_SWEEP_MAX_PAGES = env.int("SCRAPE_SWEEP_MAX_PAGES", default=10)
# A new ad matching an ad gone within this many days is announced as its relist (tracker.relists).
RELIST_WINDOW_DAYS = env.int("RELIST_WINDOW_DAYS", default=30)
# Price judgement (tracker.price_judgement): an ad is compared with the other ads its keyword found
# in the last PRICE_COMPARE_DAYS; fewer than PRICE_COMPARE_MIN of them are too few to judge; a price
# at least DEAL_PERCENT under their median is a deal (as far over it: high).
PRICE_COMPARE_DAYS = env.int("PRICE_COMPARE_DAYS", default=90)
PRICE_COMPARE_MIN = env.int("PRICE_COMPARE_MIN", default=8)
DEAL_PERCENT = env.int("DEAL_PERCENT", default=15)

# Kleinanzeigen.de (scraping/sources/kleinanzeigen.py), a source to enable in SCRAPE_SOURCES.
KLEINANZEIGEN_BASE_URL = env.str("KLEINANZEIGEN_BASE_URL", default="https://www.kleinanzeigen.de")
# A keyword on kleinanzeigen runs at most this often (the keyword form refuses a shorter interval).
KLEINANZEIGEN_MIN_INTERVAL_MINUTES = env.int("KLEINANZEIGEN_MIN_INTERVAL_MINUTES", default=10)
# Requests to the site start at least this far apart (above SCRAPE_MIN_REQUEST_GAP_MS).
KLEINANZEIGEN_REQUEST_GAP_MS = env.int("KLEINANZEIGEN_REQUEST_GAP_MS", default=3000)
# The sources keywords may use (scraping.sources.registry); the others are not offered.
SCRAPE_SOURCES = env.list("SCRAPE_SOURCES", default=["willhaben"])

# (end of scraping settings)


# --- Scheduler (scraping.tick) ----------------------------------------------

# Each next_run_at is moved up to this many seconds earlier (capped at half a tick) so
# keywords created together drift apart; never later, or the next tick would miss them.
SCHEDULER_JITTER_S = env.float("SCHEDULER_JITTER_S", default=10.0)
SCHEDULER_CLAIM_LIMIT = env.int("SCHEDULER_CLAIM_LIMIT", default=1000)
SCRAPE_ZOMBIE_MINUTES = env.int("SCRAPE_ZOMBIE_MINUTES", default=15)
# A scrape task's requests and retry waits end within this many seconds (the rest of
# Q_TIMEOUT_S is left for storing the pages), so a slow marketplace ends the run with
# its real error instead of django-q2 killing the task (lago.E006 keeps it below).
SCRAPE_TIME_BUDGET_S = env.int("SCRAPE_TIME_BUDGET_S", default=max(Q_TIMEOUT_S - 40, 1))
ZERO_RESULT_STREAK = env.int("ZERO_RESULT_STREAK", default=5)
# A keyword whose last this-many finished runs all failed/banned is failing: /health says degraded.
SCRAPE_FAILURE_STREAK = env.int("SCRAPE_FAILURE_STREAK", default=3)
# A source with active keywords and no successful run for this long is failing too.
SCRAPE_STALE_MINUTES = env.int("SCRAPE_STALE_MINUTES", default=60)
COOKIE_EXPIRY_WARN_DAYS = env.int("COOKIE_EXPIRY_WARN_DAYS", default=5)

# (end of scheduler settings)


# --- Notifications and bot (notifications app) -----------------------------

TELEGRAM_BOT_TOKEN = secret("TELEGRAM_BOT_TOKEN")
TELEGRAM_API_BASE_URL = env.str("TELEGRAM_API_BASE_URL", default="https://api.telegram.org")
# Connect/read/write timeout of one Bot API call; must stay well below NOTIFY_CLAIM_LEASE_S.
TELEGRAM_TIMEOUT_S = env.float("TELEGRAM_TIMEOUT_S", default=10.0)
# The only proxy Bot API calls use; the environment's HTTP(S)_PROXY variables are ignored for them.
TELEGRAM_PROXY_URL = env.str("TELEGRAM_PROXY_URL", default="")
# Telegram allows ~30 messages/s per bot; staying below it means normal operation never meets a 429.
TELEGRAM_MAX_PER_SECOND = env.int("TELEGRAM_MAX_PER_SECOND", default=25)
# One pace for the bot across every process and cluster, kept in the database (SendPace)
# whichever the broker; off: each process paces itself.
TELEGRAM_SHARED_PACE = env.bool("TELEGRAM_SHARED_PACE", default=True)
# Rows one process_queue() call sends at most, and the wall-time it may spend pacing them.
NOTIFY_BATCH = env.int("NOTIFY_BATCH", default=50)
NOTIFY_MAX_SECONDS = env.float("NOTIFY_MAX_SECONDS", default=50.0)
# More due rows than this for one chat are sent as one digest message instead of a flood.
NOTIFY_DIGEST_THRESHOLD = env.int("NOTIFY_DIGEST_THRESHOLD", default=20)
# A claimed row is hidden this long; if the sender dies mid-send it becomes due again afterwards.
NOTIFY_CLAIM_LEASE_S = env.int("NOTIFY_CLAIM_LEASE_S", default=120)
# Apprise destinations: one call's whole timeout (keep well below NOTIFY_CLAIM_LEASE_S), and the
# least time between two messages to one destination (more rows meanwhile become one digest).
APPRISE_TIMEOUT_S = env.float("APPRISE_TIMEOUT_S", default=10.0)
APPRISE_MIN_GAP_S = env.float("APPRISE_MIN_GAP_S", default=60.0)

# The bot (`manage.py runbot`). Chat ids are Telegram's (groups are negative).
# Chats that become active on /start without approval.
TELEGRAM_ALLOWED_CHAT_IDS = env.list("TELEGRAM_ALLOWED_CHAT_IDS", cast=int, default=[])
# Admin chats: made active with is_admin on /start and at runbot start-up; they approve requests.
TELEGRAM_ADMIN_CHAT_IDS = env.list("TELEGRAM_ADMIN_CHAT_IDS", cast=int, default=[])
# true: every chat that sends /start is active at once (no approval).
TELEGRAM_OPEN_REGISTRATION = env.bool("TELEGRAM_OPEN_REGISTRATION", default=False)
# true: active chats may propose keywords with /add (created inactive, an admin activates them).
TELEGRAM_USERS_MAY_ADD_KEYWORDS = env.bool("TELEGRAM_USERS_MAY_ADD_KEYWORDS", default=False)
# /add proposals per chat in any 24 hours (each one alerts every admin chat).
TELEGRAM_ADD_PER_DAY = env.int("TELEGRAM_ADD_PER_DAY", default=5)
# Long-poll timeout of getUpdates, seconds; must stay well below HEALTHCHECK_BOT_STALE_S.
TELEGRAM_POLL_TIMEOUT_S = env.int("TELEGRAM_POLL_TIMEOUT_S", default=30)

# (end of notification settings)


# --- Health and stats --------------------------------------------------------

# The tick beats every minute: three missed ticks make the scheduler stale.
HEALTHCHECK_SCHEDULER_STALE_S = env.int("HEALTHCHECK_SCHEDULER_STALE_S", default=180)
HEALTHCHECK_BOT_STALE_S = env.int("HEALTHCHECK_BOT_STALE_S", default=180)
# `manage.py watchdog`: how often it reads the heartbeat, and how long a stale child gets after
# SIGTERM.
WATCHDOG_INTERVAL_S = env.float("WATCHDOG_INTERVAL_S", default=30.0)
WATCHDOG_KILL_AFTER_S = env.float("WATCHDOG_KILL_AFTER_S", default=30.0)
# /health must answer within 3 s even when the database is gone, so its connection attempt gets a
# shorter bound than DB_CONNECT_TIMEOUT_S (PostgreSQL only; libpq does not accept less than 2 s).
HEALTHCHECK_DB_TIMEOUT_S = env.int("HEALTHCHECK_DB_TIMEOUT_S", default=2)
# When set, /stats and /metrics require "Authorization: Bearer <token>".
STATS_TOKEN = secret("STATS_TOKEN")
# Seconds a big installation's 24 h run figures and keyword rows are reused
# (operations/stats_cache.py); 0: never.
STATS_CACHE_S = env.int("STATS_CACHE_S", default=30)
# Read by ensure_admin (the compose `migrate` service, `make run`).
DJANGO_SUPERUSER_PASSWORD = secret("DJANGO_SUPERUSER_PASSWORD")

# --- Retention (scraping/retention.py, daily from the tick and `manage.py prune`) ---

# Scrape runs (and django-q2 failure rows) older than this are deleted; each keyword keeps its
# latest done and failed run.
RETENTION_RUNS_DAYS = env.int("RETENTION_RUNS_DAYS", default=30)
# Sent, cancelled and dead notifications older than this are deleted (pending never).
RETENTION_NOTIFICATIONS_DAYS = env.int("RETENTION_NOTIFICATIONS_DAYS", default=90)

# --- Login throttling (django-axes; README "Login throttling") --------------

# LOGIN_FAILURE_LIMIT wrong passwords in a row for one username or from one address lock both out
# for LOGIN_COOLOFF_MINUTES: the next attempt is refused even with the right password.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=6)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
# Refused attempts do not push the end of the cool-off further out.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "lago.login_throttling.lockout_response"
# The proxy's X-Forwarded-For only when BEHIND_HTTPS_PROXY says there is one
# (lago/login_throttling.py).
AXES_CLIENT_IP_CALLABLE = "lago.login_throttling.client_ip"
AXES_VERBOSE = False
# Log lines name the address; the username stays masked (people type passwords into it).
AXES_SENSITIVE_PARAMETERS = ["username"]
AUTHENTICATION_BACKENDS = [
    "lago.login_throttling.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# --- Logging ---------------------------------------------------------------

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
# Start-up warnings a process must not print because they are about a secret it is not given (the
# compose migrate service has no bot token; only web serves /stats).
SILENCED_SYSTEM_CHECKS = env.list("SILENCED_SYSTEM_CHECKS", default=[])
# "text" or "json" (one object per line); times in UTC either way (lib/log_format.py).
LOG_FORMAT = check_log_format(env.str("LOG_FORMAT", default="text"))
LOGGING = logging_config(LOG_LEVEL, LOG_FORMAT)
# django-axes: failures and lockouts at WARNING; its INFO lines repeat them.
LOGGING["loggers"]["axes"] = {"level": "WARNING"}

# Error tracking (Sentry or GlitchTip): ERROR log lines and uncaught exceptions become events,
# scrubbed.
SENTRY_DSN = secret("SENTRY_DSN")
SENTRY_ENVIRONMENT = env.str("SENTRY_ENVIRONMENT", default="production")
if (
    SENTRY_DSN
):  # imported only then: sentry-sdk takes ~0.4 s to import, on every command and healthcheck
    from lago.error_tracking import init_error_tracking

    init_error_tracking(SENTRY_DSN, SENTRY_ENVIRONMENT)
