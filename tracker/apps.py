from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class TrackerConfig(AppConfig):
    default = True
    name = "tracker"
    verbose_name = "Tracker"

    def ready(self):
        # Registers the system checks; records the process start time for uptime.
        from tracker import checks, health  # noqa: F401


class LagoAdminConfig(admin_apps.AdminConfig):
    """Django's admin with the status dashboard as its index page (in INSTALLED_APPS instead of django.contrib.admin)."""

    default = False
    default_site = "tracker.dashboard.LagoAdminSite"
