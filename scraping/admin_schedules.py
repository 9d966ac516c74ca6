"""django-q2's admins, locked: no code from the admin.

A schedule's `func`, `hook`, `args` and `kwargs` (whose `q_options` may add a `chain` or a hook),
and a stored task's function and arguments, are what the cluster imports and calls. Schedules are
the project's, made by `setup_schedules`: here they may be paused, resumed or retimed, nothing
else, by every user, superusers included. Nobody adds one, stored tasks are not resubmitted (the
tick retries what is due by itself) and queued tasks are read-only. scraping.task_guard refuses
any other task at enqueue time as well.
"""

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_q.admin import FailAdmin, QueueAdmin, ScheduleAdmin, TaskAdmin
from django_q.models import Failure, OrmQ, Schedule, Success

from scraping.task_guard import ALLOWED_TASKS

# What the cluster runs, and where: set by setup_schedules only.
LOCKED_FIELDS = ("name", "func", "hook", "args", "kwargs", "cluster", "intended_date_kwarg", "task")
TIMING_FIELDS = ("schedule_type", "minutes", "cron", "repeats", "next_run")


def is_lagos(schedule):
    """Whether `schedule` is a plain call of one of Lago's task functions."""
    return schedule.func in ALLOWED_TASKS and not (
        schedule.hook or schedule.args or schedule.kwargs or schedule.cluster
    )


class LagoScheduleForm(forms.ModelForm):
    class Meta:
        model = Schedule
        fields = TIMING_FIELDS

    def clean(self):
        # Retiming or resuming a foreign row (left from before this lock) would run it again.
        if not is_lagos(self.instance):
            raise forms.ValidationError(
                _(
                    "This schedule is not one of Lago's (function %(func)s, or extra arguments): "
                    "delete it; `manage.py setup_schedules` restores Lago's."
                )
                % {"func": self.instance.func}
            )
        return super().clean()


class LagoScheduleAdmin(ScheduleAdmin):
    form = LagoScheduleForm
    fields = (*LOCKED_FIELDS[:2], *TIMING_FIELDS, *LOCKED_FIELDS[2:])
    readonly_fields = LOCKED_FIELDS
    actions = ["pause", "resume"]

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Pause selected schedules"), permissions=["change"])
    def pause(self, request, queryset):
        count = queryset.update(repeats=0)
        self.message_user(
            request, ngettext("Paused %d schedule.", "Paused %d schedules.", count) % count
        )

    @admin.action(description=_("Resume selected schedules"), permissions=["change"])
    def resume(self, request, queryset):
        foreign = [s.name or s.pk for s in queryset if not is_lagos(s)]
        if foreign:
            self.message_user(
                request,
                _("Not resumed: %(names)s are not Lago's schedules.")
                % {"names": ", ".join(map(str, foreign))},
                messages.ERROR,
            )
            return
        count = queryset.update(repeats=-1)
        self.message_user(
            request, ngettext("Resumed %d schedule.", "Resumed %d schedules.", count) % count
        )


class LagoSuccessAdmin(TaskAdmin):
    # django-q2's resubmit_task re-runs a stored function with its stored arguments and hook.
    actions = []


class LagoFailureAdmin(FailAdmin):
    actions = []


class LagoQueueAdmin(QueueAdmin):
    # The cluster key and the lock too: moving a task to another cluster's queue or releasing its
    # lock hands it out again.
    readonly_fields = QueueAdmin.fields


for model, model_admin in (
    (Schedule, LagoScheduleAdmin),
    (Success, LagoSuccessAdmin),
    (Failure, LagoFailureAdmin),
    (OrmQ, LagoQueueAdmin),
):
    # django-q2 registers the queue only for the ORM broker: keep it that way.
    if admin.site.is_registered(model):
        admin.site.unregister(model)
        admin.site.register(model, model_admin)
