"""Only Lago's own task functions reach a worker, as plain calls: no hook, no chain, no sync.

The layer below the admin lock-down (scraping/admin_schedules.py). django-q2 builds a task from
whatever a Schedule row holds (its `kwargs` may carry `q_options`) or a resubmitted task row
held, and a task's `hook` and `chain` name further functions for the cluster to call: any
dotted path, `os.system` included. Every task passes django-q2's `pre_enqueue` signal before it
is signed; one that is not a plain call of an allowed function is rewritten there into a call of
`refused`, which fails in the worker: the attempt stays visible as a failed task and is logged at
ERROR, and nothing it named runs.

Rewriting rather than raising keeps django-q2's scheduler going: it creates every due schedule's
task in one transaction, so an exception would roll back the tick's task too, every time.
"""

import logging

from django_q.conf import Conf

logger = logging.getLogger(__name__)

ALLOWED_TASKS = ("scraping.tick.tick", "scraping.tasks.run_scrape", "notifications.tasks.send_due")
REFUSED = "scraping.task_guard.refused"
# Task options that make the cluster call something besides the task's own function, or call it
# inside the enqueuing process (sync) — the scheduler's or the web server's.
CALLING_OPTIONS = ("hook", "chain", "sync")


class TaskRefused(Exception):
    """A task that was not a plain call of one of Lago's task functions."""


def refused(reason):
    raise TaskRefused(reason)


def _dotted(func):
    if isinstance(func, str):
        return func.strip()
    return f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', repr(func))}"


def why_refused(task):
    """The reason `task` (django-q2's task dict) may not run, or "" if it may."""
    func = _dotted(task.get("func"))
    if func not in ALLOWED_TASKS:
        return f"{func!r} is not one of Lago's task functions"
    options = [
        key
        for key in CALLING_OPTIONS
        if task.get(key) and not (key == "sync" and task[key] == Conf.SYNC)
    ]
    if options:
        return f"{func} with the option(s) {', '.join(options)}"
    return ""


def guard(sender, task, **kwargs):
    """pre_enqueue receiver: turns a task that may not run into a call of `refused`, in place."""
    reason = why_refused(task)
    if not reason:
        return
    logger.error(
        "refused task %s (%s): %s; args=%.200r kwargs=%.200r options=%.300r",
        task.get("name"),
        task.get("id"),
        reason,
        task.get("args"),
        task.get("kwargs"),
        {key: task[key] for key in CALLING_OPTIONS if key in task},
    )
    kept = {key: task[key] for key in ("id", "name", "group", "cluster", "started") if key in task}
    task.clear()
    task.update(kept, func=REFUSED, args=(reason,), kwargs={})
    if Conf.CACHED:
        task["cached"] = Conf.CACHED
    if Conf.ACK_FAILURES:
        task["ack_failure"] = Conf.ACK_FAILURES
