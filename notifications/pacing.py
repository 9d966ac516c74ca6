"""Send pacing so that normal operation never meets Telegram's 429.

Telegram's limits: about 30 messages per second per bot, one per second per
private chat, 20 per minute per group (negative chat ids). We keep a sliding
window of our own send times (not a token bucket: a full bucket plus its refill
would allow twice the rate inside one second) and a next-free slot per chat.

Monotonic time: wall-clock jumps (NTP, time-machine in tests) must not stall or burst.
One Pacer per process; several worker processes each pace themselves.
"""

import time
from collections import deque

# Arrival times at Telegram jitter by a few milliseconds; keep this much clear of each limit.
MARGIN_S = 0.05
PRIVATE_INTERVAL_S = 1.0
GROUP_INTERVAL_S = 60.0 / 20


class Pacer:
    def __init__(self, max_per_second, clock=time.monotonic):
        self.max_per_second = max_per_second
        self.clock = clock
        self.window = 1.0 + MARGIN_S
        self.recent = deque(maxlen=max(1, max_per_second))
        self.chat_free_at = {}

    @staticmethod
    def chat_interval(chat_id):
        return (GROUP_INTERVAL_S if chat_id < 0 else PRIVATE_INTERVAL_S) + MARGIN_S

    def delay(self, chat_id=None):
        """Seconds to wait before a message to chat_id may go out (0: now)."""
        now = self.clock()
        wait = 0.0
        if len(self.recent) == self.recent.maxlen:
            wait = self.recent[0] + self.window - now
        if chat_id is not None:
            wait = max(wait, self.chat_free_at.get(chat_id, 0.0) - now)
        return max(0.0, wait)

    def record(self, chat_id):
        now = self.clock()
        self.recent.append(now)
        self.chat_free_at[chat_id] = now + self.chat_interval(chat_id)

    def hold_chat(self, chat_id, seconds):
        """Telegram said retry_after for this chat: nothing goes there before then."""
        self.chat_free_at[chat_id] = max(self.chat_free_at.get(chat_id, 0.0), self.clock() + seconds)

    def wait(self, chat_id):
        pause = self.delay(chat_id)
        if pause > 0:
            time.sleep(pause)
