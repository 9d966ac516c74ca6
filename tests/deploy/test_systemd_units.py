"""The systemd units in docs/operations.md: the worker and the bot are hardened like web."""

import configparser
import re
from pathlib import Path

from django.conf import settings

DOC = (Path(settings.BASE_DIR) / "docs" / "operations.md").read_text()
HARDENING = ["NoNewPrivileges", "ProtectSystem", "ReadWritePaths", "PrivateTmp"]


def units():
    """Unit name → its [Service] section, from each "`…/lago-x.service`" heading's ini block."""
    found = {}
    pattern = r"`/etc/systemd/system/(lago-[a-z]+)\.service`(?:(?!```).)*```ini\n(.*?)```"
    for name, text in re.findall(pattern, DOC, flags=re.S):
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.optionxform = str  # systemd keys are case-sensitive
        parser.read_string(text)
        found[name] = dict(parser["Service"])
    return found


def test_worker_and_bot_get_the_web_units_hardening():
    found = units()
    assert set(found) == {"lago-web", "lago-worker", "lago-bot"}
    web = {key: found["lago-web"][key] for key in HARDENING}
    assert web["NoNewPrivileges"] == "true" and web["ProtectSystem"] == "strict"
    for name in ("lago-worker", "lago-bot"):
        assert {key: found[name].get(key) for key in HARDENING} == web, name
