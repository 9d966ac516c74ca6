from django.apps import AppConfig


class ScrapingConfig(AppConfig):
    name = "scraping"
    verbose_name = "Scraping"

    def ready(self):
        from django_q.signals import pre_enqueue

        # Registers the marketplaces' names for the layers below (messages name the marketplace),
        # in every process, whether or not it scrapes.
        from scraping.sources import registry  # noqa: F401
        from scraping.task_guard import guard

        # Every process that enqueues (web, scheduler, a chain in the monitor) checks each task.
        pre_enqueue.connect(guard, dispatch_uid="lago-task-guard")
