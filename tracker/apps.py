from django.apps import AppConfig


class TrackerConfig(AppConfig):
    name = "tracker"
    verbose_name = "Tracker"

    def ready(self):
        # Registers the system checks; records the process start time for uptime.
        from tracker import checks, health  # noqa: F401
