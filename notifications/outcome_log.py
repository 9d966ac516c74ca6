"""The sender's outcome writes, kept until the database has them.

A message Telegram accepted is recorded as sent by one UPDATE (the settle). If the database
is lost at that moment (a restart, a failover, a dropped connection) and the outcome is
forgotten, the row comes back when its claim's lease ends and the message goes out again.
So every write that records what became of claimed rows (sent, failed, deferred, given back)
goes through an OutcomeLog: in order, retried on a fresh connection with a short backoff
until RETRY_S has passed. If the database is still away then, the writes stay in the log,
in this process, and the sender's next round starts by writing them: nothing is sent while
an outcome waits.

A message can then go out twice only if this process dies while an outcome waits (killed,
out of memory, ended by the task timeout), or if the database stays away past the claim's
lease (NOTIFY_CLAIM_LEASE_S) and another process takes the row before this one records it.

Every write must be idempotent: a write whose answer was lost may have committed, and runs
again.
"""

import logging
import time
from collections import deque

from django.db import DatabaseError, InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

# A PostgreSQL restart takes seconds, a managed failover up to about a minute. Thirty seconds
# of retrying keeps a round (NOTIFY_MAX_SECONDS) well inside the tick's task timeout
# (Q_TIMEOUT_S), whose end would kill the process and the log with it; a longer outage
# leaves the outcome to the next round.
RETRY_S = 30.0
FIRST_PAUSE_S = 0.1
MAX_PAUSE_S = 2.0
# The connection or the server is gone (or a lock timed out): the same write may succeed on a
# new connection. Other database errors are bugs or bad data, which retrying does not fix.
LOST = (OperationalError, InterfaceError)


class OutcomeLog:
    """Outcome writes not yet known to be in the database, oldest first."""

    def __init__(self, patience=RETRY_S):
        self.patience = patience
        self.waiting = deque()

    def __len__(self):
        return len(self.waiting)

    def record(self, what, write):
        """Runs `write` after every write still waiting. `what` names it in the log lines
        (rows, chat, message). Raises the database's error, keeping the writes, when the
        database is still away after `patience` seconds."""
        self.waiting.append((what, write))
        self.flush()

    def flush(self):
        """Runs the waiting writes in order (see record)."""
        deadline = time.monotonic() + self.patience
        while self.waiting:
            what, write = self.waiting[0]
            _write(what, write, deadline, len(self.waiting))
            self.waiting.popleft()


def _write(what, write, deadline, waiting):
    pause, tries = FIRST_PAUSE_S, 0
    while True:
        tries += 1
        try:
            write()
        except LOST as exc:
            if connection.in_atomic_block:
                raise  # the connection of an open transaction cannot be replaced under it
            if time.monotonic() + pause > deadline:
                logger.error(
                    "notifications: could not record %s after %d tries (%s); %d outcome(s) kept "
                    "in this process, written before anything else is sent",
                    what,
                    tries,
                    _one_line(exc),
                    waiting,
                )
                raise
            logger.warning(
                "notifications: recording %s failed (try %d: %s); reconnecting in %.1fs",
                what,
                tries,
                _one_line(exc),
                pause,
            )
            _drop_connection()
            time.sleep(pause)
            pause = min(pause * 2, MAX_PAUSE_S)
        else:
            if tries > 1:
                logger.warning("notifications: recorded %s at try %d", what, tries)
            return


def _drop_connection():
    """Closes the broken connection; the next query opens a new one."""
    try:
        connection.close()
    except DatabaseError:
        logger.debug("notifications: closing the lost connection failed", exc_info=True)


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__
