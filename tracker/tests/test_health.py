import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_health_is_ok_when_the_database_answers(client):
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["db_connected"] is True


def test_health_is_unhealthy_when_the_database_fails(client, monkeypatch):
    def broken_cursor(*args, **kwargs):
        from django.db import OperationalError

        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/health")
    assert response.status_code == 503
    assert response.json() == {"status": "unhealthy", "reason": "database_unreachable", "db_connected": False}
