from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrackerConfig(AppConfig):
    default = True
    name = "tracker"
    verbose_name = _("Tracker")
