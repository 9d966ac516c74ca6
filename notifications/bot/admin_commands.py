"""Admin-only bot commands, registered by the layers above (operations adds /stats and /health).

The bot does not import those layers: they call `register` from their AppConfig.ready(), so the
commands exist in every process that loads Django's apps. The gate (access.access) refuses
every registered name to non-admin chats.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AdminCommand:
    name: str
    description: str
    # (ChatRef, args) -> Reply, run in a thread like every other service.
    func: Callable


_REGISTRY: dict[str, AdminCommand] = {}


def register(name, description):
    """Decorator: `@register("stats", "Figures of the last 24 h")`."""

    def add(func):
        _REGISTRY[name] = AdminCommand(name, description, func)
        return func

    return add


def names():
    return set(_REGISTRY)


def all_commands():
    return list(_REGISTRY.values())
