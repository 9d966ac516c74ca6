"""A run's figures in one shape, from ingest to the ScrapeRun row."""

from dataclasses import dataclass, field

SUMMED = ("pages", "ads_seen", "ads_new", "price_drops", "price_changes", "notifications")


@dataclass
class RunCounts:
    pages: int = 0
    ads_seen: int = 0
    ads_new: int = 0
    price_drops: int = 0
    price_changes: int = 0
    notifications: int = 0
    # Rare figures that only go into ScrapeRun.counters: coverage_gap, bad_ads, ...
    extra: dict = field(default_factory=dict)

    def add(self, other):
        for name in SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.extra.items():
            self.extra[key] = self.extra.get(key, 0) + value
        return self

    @property
    def counters(self):
        """What the run row keeps in its JSON `counters`."""
        return {
            "price_changes": self.price_changes,
            "notifications": self.notifications,
            **self.extra,
        }

    def run_fields(self):
        """ScrapeRun columns (counters merged by ScrapeRun.finish)."""
        return {
            "pages_fetched": self.pages,
            "ads_seen": self.ads_seen,
            "ads_new": self.ads_new,
            "price_drops": self.price_drops,
        }
