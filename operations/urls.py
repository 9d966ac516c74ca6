from django.urls import path

from operations import views

urlpatterns = [
    path("health", views.health, name="health"),
    path("stats", views.stats, name="stats"),
    path("metrics", views.metrics_view, name="metrics"),
]
