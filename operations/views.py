"""Operational endpoints: /health, /stats, /metrics. The logic lives in operations.health,
operations.stats, operations.metrics."""

import hmac
from functools import wraps

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from operations import metrics
from operations.health import WEB, health_report, process_problem
from operations.stats import collect_stats


def _bearer_token(request):
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def stats_token_required(view):
    """With STATS_TOKEN set, the view needs "Authorization: Bearer <STATS_TOKEN>"; without it, it is
    open."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        expected = settings.STATS_TOKEN
        if expected and not hmac.compare_digest(_bearer_token(request).encode(), expected.encode()):
            response = JsonResponse({"error": "unauthorized"}, status=401)
            response["WWW-Authenticate"] = 'Bearer realm="lago"'
            return response
        return view(request, *args, **kwargs)

    return wrapped


@never_cache
@require_GET
def health(request):
    check = request.GET.get("check")
    if check is not None:
        return _process_health(check)
    report = health_report()
    report.pop(
        "scraping", None
    )  # keyword queries and error bodies are for status/admin, not the public probe
    # Degraded (a marketplace fails) is still 200: restarting the web container would not help.
    return JsonResponse(report, status=503 if report["status"] == "unhealthy" else 200)


def _process_health(check):
    """`/health?check=web`: only what the web process needs (the database), for its container
    healthcheck."""
    if check != WEB:
        return JsonResponse({"error": f"unknown check {check!r}: use {WEB}"}, status=400)
    problem = process_problem(WEB)
    body = {
        "status": "unhealthy" if problem else "ok",
        "check": check,
        "db_connected": problem is None,
    }
    if problem:
        body["reason"] = problem
    return JsonResponse(body, status=503 if problem else 200)


@never_cache
@require_GET
@stats_token_required
def stats(request):
    return JsonResponse(collect_stats())


@never_cache
@require_GET
@stats_token_required
def metrics_view(request):
    report = health_report()
    figures = (
        collect_stats(queue=report["queue"], latest_runs=False) if report["db_connected"] else None
    )  # no run in /metrics
    return HttpResponse(metrics.render(report, figures), content_type=metrics.CONTENT_TYPE)
