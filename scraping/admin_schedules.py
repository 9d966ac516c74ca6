"""django-q2's Schedule admin, limited to Lago's own task functions.

A schedule's `func` (and `hook`) is any dotted path the cluster will import and call: left
open, the admin could schedule `os.system`. Only the functions below may be scheduled
(setup_schedules owns the tick schedule; run_scrape is what Run now and the tick enqueue).
"""

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django_q.admin import ScheduleAdmin
from django_q.models import Schedule

ALLOWED_TASKS = ("scraping.tick.tick", "scraping.tasks.run_scrape")


class LagoScheduleForm(forms.ModelForm):
    class Meta:
        model = Schedule
        fields = [f.name for f in Schedule._meta.fields if f.editable and not f.primary_key]

    def clean_func(self):
        func = (self.cleaned_data.get("func") or "").strip()
        if func not in ALLOWED_TASKS:
            raise forms.ValidationError(
                _("Only Lago's task functions can be scheduled: %(tasks)s.")
                % {"tasks": ", ".join(ALLOWED_TASKS)}
            )
        return func

    def clean_hook(self):
        hook = (self.cleaned_data.get("hook") or "").strip()
        if hook:
            raise forms.ValidationError("Lago's schedules take no hook.")
        return hook or None


class LagoScheduleAdmin(ScheduleAdmin):
    form = LagoScheduleForm


admin.site.unregister(Schedule)
admin.site.register(Schedule, LagoScheduleAdmin)
