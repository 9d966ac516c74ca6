from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.utils.translation import gettext_lazy as _
from django_q.apps import DjangoQConfig


class OperationsConfig(AppConfig):
    """The top layer: health, stats, metrics, the dashboard, `status`, system checks, the bot's
    admin commands."""

    default = True
    name = "operations"
    verbose_name = _("Operations")

    def ready(self):
        # Registers the system checks and the bot's admin commands; records the process start time
        # for uptime.
        from operations import bot_commands, checks, health  # noqa: F401


class LagoAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the status dashboard as its index page (in INSTALLED_APPS instead of
    django.contrib.admin)."""

    default = False
    default_site = "operations.dashboard.LagoAdminSite"


class TaskQueueConfig(DjangoQConfig):
    """django-q2 with a translated heading in the admin (in INSTALLED_APPS instead of django_q):
    its own verbose_name is the Q_CLUSTER label, a plain string read once at import."""

    default = False
    verbose_name = _("Task queue")
