"""Operational endpoints: /health."""

import logging

from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from notifications.telegram import sending_paused

logger = logging.getLogger(__name__)


def database_answers():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError as exc:
        logger.warning("health: database check failed: %s", exc)
        return False


@never_cache
@require_GET
def health(request):
    if not database_answers():
        return JsonResponse({"status": "unhealthy", "reason": "database_unreachable", "db_connected": False}, status=503)
    # No bot token pauses sending (rows stay queued); it is reported, not unhealthy.
    return JsonResponse({"status": "ok", "db_connected": True, "sending_paused": sending_paused()})
