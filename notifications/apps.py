from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = _("Notifications")

    def ready(self):
        # The Bot API token is in every request URL (httpx, PTB debug logs):
        # redact it in every record, whichever handler receives it.
        from lib.log_filters import install_redacting_record_factory

        install_redacting_record_factory()
