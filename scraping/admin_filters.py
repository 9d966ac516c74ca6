"""List filters shared by the scraping admins."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from scraping.sources.registry import all_choices


class SourceFilter(admin.SimpleListFilter):
    """The registered sources: not a SELECT DISTINCT over every run, as a plain field filter
    would be."""

    title = _("source")
    parameter_name = "source"

    def lookups(self, request, model_admin):
        return all_choices()

    def queryset(self, request, queryset):
        return queryset.filter(source=self.value()) if self.value() else queryset
