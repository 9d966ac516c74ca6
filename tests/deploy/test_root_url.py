"""`/` (and the admin's "View site" link) leads to the admin, not to a 404."""

from django.urls import reverse


def test_root_redirects_to_the_admin(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:index")
