"""Pairs the new ads of a page with the gone ads they relist (rules: tracker.relists)."""

from collections import defaultdict

from tracker.models import Ad
from tracker.relists import prices_match, same_seller, title_key


def match_relists(source, ads, now):
    """{external id: the gone Ad it relists} for `ads` (ParsedAds new to the database).

    Only matches naming the same seller are linked (tracker.relists). One query for the
    page. The most recently gone match wins; each gone ad is taken by one new ad at most
    (the first on the page).
    """
    keyed = [(ad, (title_key(ad.title), ad.postcode)) for ad in ads]
    keyed = [(ad, key) for ad, key in keyed if key[0] and ad.seller_id]
    if not keyed:
        return {}
    candidates = defaultdict(list)
    for gone in Ad.objects.relist_candidates(source, {key for _, key in keyed}, now).only(
        "pk", "title_key", "postcode", "price", "seller_id"
    ):
        candidates[(gone.title_key, gone.postcode)].append(gone)
    matches, taken = {}, set()
    for ad, key in keyed:
        for gone in candidates[key]:
            if (
                gone.pk not in taken
                and same_seller(gone.seller_id, ad.seller_id)
                and prices_match(gone.price, ad.price)
            ):
                matches[ad.external_id] = gone
                taken.add(gone.pk)
                break
    return matches
