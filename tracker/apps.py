from django.apps import AppConfig


class TrackerConfig(AppConfig):
    default = True
    name = "tracker"
    verbose_name = "Tracker"
