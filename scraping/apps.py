from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScrapingConfig(AppConfig):
    name = "scraping"
    verbose_name = _("Scraping")

    def ready(self):
        from django_q.signals import pre_enqueue

        # Registers the marketplaces' names for the layers below (messages name the marketplace),
        # in every process, whether or not it scrapes.
        from scraping.sources import registry  # noqa: F401
        from scraping.task_guard import guard

        # Every process that enqueues (web, scheduler, a chain in the monitor) checks each task.
        pre_enqueue.connect(guard, dispatch_uid="lago-task-guard")
