"""Server-side seeding for bench/history.py: months of a realistic installation in PostgreSQL.

Every table is filled with one `INSERT … SELECT … FROM generate_series(…)` (no ORM, no
round trip per row): 13M scrape runs would take hours through Django on two cores.

Proportions: 300 keywords every 5 minutes, 20 chats × 20 keywords; per six
months 300k ads, 600k keyword-ad links, 200k price changes and 1M notifications; 288
runs per keyword per day (13M in six months).
"""

from dataclasses import asdict, dataclass

KEYWORDS, CHATS, PER_CHAT = 300, 20, 20
RUNS_PER_KEYWORD_PER_DAY = 24 * 60 // 5
PER_SIX_MONTHS = {
    "ads": 300_000,
    "keyword_ads": 600_000,
    "price_changes": 200_000,
    "notifications": 1_000_000,
}
ITEMS = [
    "Rennrad",
    "Mountainbike",
    "Kinderfahrrad",
    "E-Bike",
    "Sofa",
    "Esstisch",
    "iPhone 13",
    "Waschmaschine",
]
ITEMS += [
    "Winterreifen",
    "Kinderwagen",
    "Gartenbank",
    "Playstation 5",
    "Nähmaschine",
    "Kaffeevollautomat",
    "Schreibtisch",
]
BRANDS = [
    "Cube",
    "KTM",
    "Specialized",
    "Bosch",
    "Miele",
    "Siemens",
    "Apple",
    "Samsung",
    "Sony",
    "Ikea",
    "Puky",
    "Trek",
]
BRANDS += ["Canyon", "Giant", "Vaude", "Delonghi", "Jura", "Philips", "Kettler", "Hasena"]
STATES = [
    "neuwertig",
    "gebraucht",
    "wie neu",
    "defekt",
    "top Zustand",
    "mit Rechnung",
    "Abholung Wien",
    "inkl. Zubehör",
]


@dataclass
class Plan:
    months: int
    run_days: int  # days of scrape runs seeded (the retained window unless --full)
    notification_days: int
    ads: int
    keyword_ads: int
    price_changes: int
    notifications: int
    runs: int = 0

    @classmethod
    def make(cls, months, run_days, notification_days, scale=1.0):
        def scaled(name, days=30 * months):
            return int(PER_SIX_MONTHS[name] * days // 180 * scale)

        plan = cls(
            months=months,
            run_days=run_days,
            notification_days=notification_days,
            ads=scaled("ads"),
            keyword_ads=scaled("keyword_ads"),
            price_changes=scaled("price_changes"),
            notifications=scaled("notifications", notification_days),
        )
        plan.runs = (
            int(KEYWORDS * RUNS_PER_KEYWORD_PER_DAY * run_days * scale) // KEYWORDS * KEYWORDS
        )
        return plan

    def as_dict(self):
        return asdict(self)


def _array(words):
    return "(ARRAY[" + ", ".join("'" + w.replace("'", "''") + "'" for w in words) + "])"


def statements(plan):
    """(label, sql) in order; %(now)s is the seeding moment."""
    months_s = plan.months * 30 * 86400
    runs_s = plan.run_days * 86400
    notes_s = plan.notification_days * 86400
    title = (
        f"{_array(BRANDS)}[1 + g % {len(BRANDS)}] || ' ' || {_array(ITEMS)}[1 + (g / "
        f"{len(BRANDS)}) % {len(ITEMS)}]"
        f" || ' ' || {_array(STATES)}[1 + (g / 7) % {len(STATES)}] || ' #' || g"
    )
    # Ad g first seen (g / ads) of the span ago: ad 1 is the newest.
    ad_seen = f"%(now)s - make_interval(secs => g::float8 / {plan.ads} * {months_s})"
    return [
        (
            "keywords",
            f"""INSERT INTO tracker_keyword (name, query, source, excluded_words, interval_minutes,
                is_active, cursor_published_at, cursor_ad_id, next_run_at, last_run_at, created_at,
                updated_at, next_sweep_at, consecutive_failures, last_error, last_error_detail,
                last_finished_status, last_success_at)
            SELECT 'bench ' || g, 'bench query ' || g, 'willhaben', '', 5, true,
                %(now)s - interval '10 minutes', '', %(now)s + interval '3 minutes',
                %(now)s - interval '2 minutes',
                %(now)s - make_interval(secs => {months_s}), %(now)s, %(now)s + interval '1 day',
                0, '', '', 'done', %(now)s - interval '2 minutes'
            FROM generate_series(1, {KEYWORDS}) g""",
        ),
        (
            "chats",
            f"""INSERT INTO notifications_telegramchat
                (chat_id, title, username, status, status_reason, is_admin, language, time_zone,
                created_at)
            SELECT 10000 + g, 'bench chat ' || g, '', 'active', '', g = 1, 'de-at', '', %(now)s
            FROM generate_series(1, {CHATS}) g""",
        ),
        (
            "subscriptions",
            f"""INSERT INTO notifications_subscription (chat_id, keyword_id, created_at, drop_rule)
            SELECT c.id, k.id, %(now)s, 'every'
            FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n
                  FROM notifications_telegramchat) c
            JOIN generate_series(0, {PER_CHAT - 1}) j ON true
            JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM tracker_keyword) k
              ON k.n = (c.n * 15 + j) % {KEYWORDS}""",
        ),
        (
            "ads",
            f"""INSERT INTO tracker_ad (source, external_id, title, price, currency, url, location,
                postcode, image_url, published_at, first_seen_at, last_seen_at, gone_at, title_key)
            SELECT 'willhaben', (100000000 + g)::text, {title}, (20 + g % 1980)::numeric, 'EUR',
                'https://www.willhaben.at/iad/object?adId=' || (100000000 + g), 'Wien', '1010',
                'https://cache.willhaben.at/mmo/' || g || '.jpg', {ad_seen}, {ad_seen},
                {ad_seen} + interval '3 days',
                CASE WHEN g % 3 = 0 THEN {ad_seen} + interval '4 days' END,
                trim(lower(regexp_replace({title}, '[^[:alnum:]]+', ' ', 'g')))
            FROM generate_series(1, {plan.ads}) g""",
        ),
        (
            "keyword_ads",
            # Each ad matches two keywords (ads ids are consecutive from the first one).
            f"""INSERT INTO tracker_keywordad (keyword_id, ad_id, found_at, price)
            SELECT k0.id + (a.id + m * 150) % {KEYWORDS}, a.id, a.first_seen_at, a.price
            FROM tracker_ad a, (SELECT min(id) AS id FROM tracker_keyword) k0,
                generate_series(0, 1) m
            WHERE a.id < (SELECT min(id) FROM tracker_ad) + {plan.keyword_ads // 2}""",
        ),
        (
            "price_changes",
            f"""INSERT INTO tracker_pricechange (ad_id, old_price, new_price, seen_at)
            SELECT a0.id + (g - 1) % {plan.ads}, 100 + g % 900, 90 + g % 900,
                %(now)s - make_interval(secs => g::float8 / {plan.price_changes} * {months_s})
            FROM generate_series(1, {plan.price_changes}) g,
                (SELECT min(id) AS id FROM tracker_ad) a0""",
        ),
        (
            "scrape_runs",
            # Keyword n runs every 5 minutes; of each keyword's runs 95 % done, 3 % failed, 2 %
            # skipped (collapsed skip rows), spread over its history.
            f"""INSERT INTO scraping_scraperun (keyword_id, source, status, kind, started_at,
                finished_at, pages_fetched, ads_seen, ads_new, price_drops, error, detail, counters)
            SELECT k0.id + g % {KEYWORDS}, 'willhaben', s.status, 'scheduled', s.at,
                s.at + interval '20 seconds', 1, 30, (g % 4)::int, (g % 7 = 0)::int,
                CASE s.status WHEN 'failed' THEN 'timeout' WHEN 'skipped' THEN 'already_running'
                    ELSE '' END, '',
                CASE s.status WHEN 'skipped' THEN '{{"skips": 1}}'::jsonb ELSE '{{}}'::jsonb END
            FROM generate_series(0, {plan.runs - 1}) g,
                (SELECT min(id) AS id FROM tracker_keyword) k0,
                LATERAL (SELECT %(now)s
                             - make_interval(secs => (g / {KEYWORDS})::float8
                                 / {plan.runs // KEYWORDS} * {runs_s})
                             - make_interval(secs => g % {KEYWORDS}) AS at,
                         CASE WHEN (g / {KEYWORDS} + g) % 100 < 95 THEN 'done'
                              WHEN (g / {KEYWORDS} + g) % 100 < 98 THEN 'failed'
                              ELSE 'skipped' END AS status) s""",
        ),
        (
            "notifications",
            # (chat, ad, kind, price) unique: chat = g % 20, ad = g / 20; 98 % sent, 1 % dead,
            # 1 % cancelled.
            f"""INSERT INTO notifications_notification (chat_id, ad_id, keyword_id, kind, price,
                old_price, text, alert_key, status, attempts, next_attempt_at, last_error,
                created_at, sent_at, claim_token)
            SELECT c0.id + g % {CHATS}, a0.id + (g / {CHATS}) % {plan.ads}, k0.id + g % {KEYWORDS},
                CASE WHEN g % 5 = 0 THEN 'price_drop' ELSE 'new' END,
                100 + g / ({CHATS} * {plan.ads}), NULL, '', '',
                CASE WHEN g % 100 = 0 THEN 'dead' WHEN g % 100 = 1 THEN 'cancelled' ELSE 'sent' END,
                1, n.at,
                CASE WHEN g % 100 = 0 THEN '400 Bad Request: chat not found' ELSE '' END, n.at,
                CASE WHEN g % 100 > 1 THEN n.at + interval '2 seconds' END, ''
            FROM generate_series(0, {plan.notifications - 1}) g,
                (SELECT min(id) AS id FROM notifications_telegramchat) c0,
                (SELECT min(id) AS id FROM tracker_ad) a0,
                (SELECT min(id) AS id FROM tracker_keyword) k0,
                LATERAL (SELECT %(now)s
                    - make_interval(secs => g::float8 / {plan.notifications} * {notes_s})
                    AS at) n""",
        ),
    ]


# The installation without its history: what it is configured with on its first day.
CONFIGURATION = ("keywords", "chats", "subscriptions")


def seed(connection, plan, now, progress=print, only=None):
    """Runs the statements (those labelled in `only`, or all) on a Django connection (PostgreSQL);
    returns {label: rows}."""
    import time

    rows = {}
    with connection.cursor() as cursor:
        for label, sql in statements(plan):
            if only is not None and label not in only:
                continue
            start = time.perf_counter()
            cursor.execute(sql.replace("%", "%%").replace("%%(now)s", "%(now)s"), {"now": now})
            rows[label] = cursor.rowcount
            progress(f"  seeded {rows[label]:>10,} {label} in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        cursor.execute("VACUUM ANALYZE" if connection.get_autocommit() else "ANALYZE")
        progress(f"  analysed in {time.perf_counter() - start:.1f} s")
    return rows
