from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self):
        # The Bot API token is in every request URL (httpx, PTB debug logs):
        # redact it in every record, whichever handler receives it.
        from lib.log_filters import install_redacting_record_factory

        install_redacting_record_factory()
