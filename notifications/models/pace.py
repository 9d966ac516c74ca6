"""The send pace shared by every sender process on the ORM broker (see notifications/pace_store.py)."""

from django.db import models


class SendPace(models.Model):
    """The next free send slot of one bot ("<bot id>") or of one chat of it ("<bot id>:<chat id>").

    Times are seconds since the epoch on the database's clock, so senders on several
    hosts measure against one clock. Rows are reserved in short transactions and never
    held while a sender sleeps.
    """

    key = models.CharField(max_length=64, primary_key=True)
    free_at = models.FloatField(default=0.0)
    # The pacer that reserved the slot: a chat busy for another process is left to it.
    owner = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        verbose_name = "send pace"

    def __str__(self):
        return f"{self.key} free at {self.free_at:.3f}"
