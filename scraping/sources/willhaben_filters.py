"""The filters of a pasted willhaben search URL, in words.

Lago sends a pasted URL's parameters to willhaben as they are (its paging ones aside), so
willhaben applies them; the keyword page names them, so an operator sees what the search filters
beyond its words and prices. A known filter with a value willhaben does not offer is refused
(BadQuery) rather than searched for nothing. The ids are the ones willhaben's own search pages
offer (their `navigatorGroups`, in the recorded pages under LAGO_FIXTURES_DIR/willhaben).
"""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from scraping.errors import BadQuery

# Named elsewhere (the words, the price fields, the category in the path) or navigation state.
NOT_FILTERS = {
    "keyword",
    "PRICE_FROM",
    "PRICE_TO",
    "sfId",
    "isNavigation",
    "searchId",
    "ATTRIBUTE_TREE",
    "attributeTreeId",
}
STATES = {
    "1": "Burgenland",
    "2": "Kärnten",
    "3": "Niederösterreich",
    "4": "Oberösterreich",
    "5": "Salzburg",
    "6": "Steiermark",
    "7": "Tirol",
    "8": "Vorarlberg",
    "900": "Wien",
    "22000": _("other countries"),
}
# Vienna's n-th district (1..23) is areaId 117222 + n.
VIENNA_DISTRICT_BASE, VIENNA_DISTRICTS = 117222, 23
CONDITION, HANDOVER = _("condition"), _("handover")
TREE_ATTRIBUTES = {
    "22": (CONDITION, _("new")),
    "2546": (CONDITION, _("as good as new")),
    "23": (CONDITION, _("used")),
    "24": (CONDITION, _("defective")),
    "2539": (CONDITION, _("display item")),
    "2536": (HANDOVER, _("pick-up")),
    "2537": (HANDOVER, _("shipping")),
}
SELLERS = {"0": _("dealer"), "1": _("private")}
LIVING_AREA = {
    "ESTATE_SIZE/LIVING_AREA_FROM": _("from %(n)s m²"),
    "ESTATE_SIZE/LIVING_AREA_TO": _("up to %(n)s m²"),
}


def url_filters(params):
    """["label: value, value", ...] for the filters among a URL's (name, value) pairs, one entry
    per label in the URL's order; BadQuery for a known filter's value willhaben does not offer.
    An unknown parameter is listed as it is: sent to willhaben, so shown."""
    groups = {}
    for name, value in params:
        if name in NOT_FILTERS:
            continue
        label, words = _in_words(name, value)
        groups.setdefault(str(label), []).append(str(words))
    return [f"{label}: {', '.join(values)}" for label, values in groups.items()]


def _in_words(name, value):
    if name == "areaId":
        return _("region"), _area(value)
    if name == "treeAttributes":
        if value in TREE_ATTRIBUTES:
            return TREE_ATTRIBUTES[value]
        return _("feature"), _number(name, value)
    if name == "ISPRIVATE":
        return _("seller"), _one_of(name, value, SELLERS)
    if name == "paylivery":
        return _("PayLivery"), _one_of(name, value, {"true": _("buyer protection and shipping")})
    if name in LIVING_AREA:
        return _("living area"), LIVING_AREA[name] % {"n": _number(name, value)}
    return name, value


def _area(value):
    if value in STATES:
        return STATES[value]
    district = int(_number("areaId", value)) - VIENNA_DISTRICT_BASE
    if 1 <= district <= VIENNA_DISTRICTS:
        return gettext("Vienna, district %(n)d") % {"n": district}
    return gettext("area %(id)s") % {"id": value}


def _one_of(name, value, words):
    if value not in words:
        raise BadQuery(f"URL filter {name}={value!r} is not one willhaben offers")
    return words[value]


def _number(name, value):
    if not value.isascii() or not value.isdigit():
        raise BadQuery(f"URL filter {name}={value!r} is not a number")
    return value
