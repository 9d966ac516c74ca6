"""The Keyword form runs the source's own query check and refuses negative prices."""

import pytest
from django.urls import reverse

from tests.factories import keyword_form
from tracker.models import Keyword

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
ADD = reverse("admin:tracker_keyword_add")


@pytest.mark.parametrize(
    "changes,message",
    [
        (
            {"query": "https://www.ebay.at/sch/i.html?_nkw=rtx"},
            "cannot search this: not a willhaben URL",
        ),
        (
            {"query": "https://www.willhaben.at/hilfe/kontakt"},
            "cannot search this: not a willhaben search URL",
        ),
        ({"price_min": "-5"}, "A price cannot be negative."),
        ({"price_max": "-1"}, "A price cannot be negative."),
    ],
)
def test_bad_queries_and_negative_prices_are_rejected_in_the_form(admin_client, changes, message):
    response = admin_client.post(ADD, keyword_form(**changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Keyword.objects.exists()


def test_a_willhaben_search_url_is_accepted(admin_client):
    url = "https://www.willhaben.at/iad/kaufen-und-verkaufen/marktplatz?keyword=rtx"
    response = admin_client.post(ADD, keyword_form(query=url))
    assert response.status_code == 302
    assert Keyword.objects.get().query == url
