from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class OperationsConfig(AppConfig):
    """The top layer: health, stats, metrics, the dashboard, `status`, system checks, the bot's
    admin commands."""

    default = True
    name = "operations"
    verbose_name = "Operations"

    def ready(self):
        # Registers the system checks and the bot's admin commands; records the process start time
        # for uptime.
        from operations import bot_commands, checks, health  # noqa: F401


class LagoAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the status dashboard as its index page (in INSTALLED_APPS instead of
    django.contrib.admin)."""

    default = False
    default_site = "operations.dashboard.LagoAdminSite"
