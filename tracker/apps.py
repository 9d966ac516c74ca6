from django.apps import AppConfig


class TrackerConfig(AppConfig):
    name = "tracker"
    verbose_name = "Tracker"

    def ready(self):
        from tracker import checks  # noqa: F401  (registers the system checks)
