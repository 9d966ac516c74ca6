"""`/price <keyword> <price>`: how a price stands against the ads a followed keyword found.

The keyword is found as /subscribe finds it (id, name or unique prefix); the judgement is
tracker.price_judgement's, the same the messages and `manage.py price_check` show.
"""

import logging
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from lib.money import euro, parse_euro
from notifications.bot.replies import ChatRef, Reply, chat_of
from notifications.messages import esc
from notifications.models import Subscription
from notifications.models.subscriptions import PRICE_MAX, PRICE_MIN
from tracker.price_judgement import PriceLabel, judge_price

logger = logging.getLogger(__name__)


def usage():
    return _(
        "Send /price &lt;keyword&gt; &lt;price&gt;, e.g. /price 12 450, for a keyword you follow. "
        "/status lists them."
    )


def price(ref: ChatRef, args, find_keyword) -> Reply:
    """`find_keyword(args, command, active_only, chat)` → (keyword, None) or (None, error Reply):
    the lookup /subscribe uses."""
    args = list(args)
    if len(args) >= 3 and args[-2] == "€":  # "/price 12 € 450"
        del args[-2]
    if len(args) < 2:
        return Reply(usage())
    raw = args[-1]
    try:
        value = parse_euro(raw)
    except ValueError:
        value = None
    if value is None or not PRICE_MIN <= value <= PRICE_MAX:
        logger.info("bot: chat %s: /price %r refused: bad price", ref.chat_id, " ".join(args))
        return Reply(
            _("“%(value)s” is not a price between %(min)s and %(max)s.")
            % {"value": esc(raw[:40]), "min": euro(PRICE_MIN), "max": euro(PRICE_MAX)}
            + " "
            + usage()
        )
    chat = chat_of(ref)
    keyword, error = find_keyword(args[:-1], "price", active_only=False, chat=chat)
    if error:
        logger.info("bot: chat %s: /price %r refused: no such keyword", ref.chat_id, " ".join(args))
        return Reply(error.text + "\n" + usage())
    name = f"#{keyword.pk} {esc(keyword.display_name)}"
    if not Subscription.objects.filter(chat=chat, keyword=keyword).exists():
        logger.info("bot: chat %s: /price for #%s refused: not followed", ref.chat_id, keyword.pk)
        return Reply(
            _(
                "You do not follow %(name)s: /price judges prices for the keywords you follow. "
                "/subscribe %(id)s follows it."
            )
            % {"name": name, "id": keyword.pk}
        )
    judgement = judge_price(keyword, value)
    return Reply("\n".join(judgement_lines(name, value, judgement)))


def judgement_lines(name, value, judgement):
    """The reply's lines (HTML; `name` escaped already) for `value` judged `judgement`."""
    head = _("💡 %(price)s for %(name)s") % {"price": f"<b>{euro(value)}</b>", "name": name}
    if judgement.label == PriceLabel.TOO_FEW or judgement.median is None:
        minimum = settings.PRICE_COMPARE_MIN
        return [
            head,
            _("Too few comparable ads (%(n)d of at least %(min)d) to judge this price.")
            % {"n": judgement.n, "min": minimum},
        ]
    lines = [
        head + ": <b>" + esc(PriceLabel(judgement.label).label) + "</b>",
        _("Median %(median)s of %(n)d comparable ads.")
        % {"median": euro(judgement.median), "n": judgement.n},
    ]
    if judgement.percent is not None:
        percent = Decimal(judgement.percent).quantize(Decimal("0.1"), ROUND_HALF_UP)
        values = {"percent": number_format(abs(percent), 1)}
        if percent < 0:
            lines.append(_("%(percent)s %% under the median.") % values)
        elif percent > 0:
            lines.append(_("%(percent)s %% over the median.") % values)
        else:
            lines.append(_("At the median."))
    if judgement.percentile is not None:
        share = number_format(round(judgement.percentile), 0)
        lines.append(
            _("Percentile %(percentile)s: %(percentile)s %% of the comparable ads are cheaper.")
            % {"percentile": share}
        )
    if judgement.lowest:
        lines.append(_("Cheaper than every comparable ad."))
    if judgement.label == PriceLabel.SUSPICIOUS:
        lines.append(_("⚠️ Suspiciously cheap: check the ad for damage, swaps or wanted ads."))
    return lines
