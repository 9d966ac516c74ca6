"""German (de, de-at) formats as Austrians read them in a table: 03.12.2026 09:24, not "3. Dezember
2026 09:24"."""

from django.conf.locale.de.formats import *  # noqa: F403 (Django's German formats; the lines below override the long ones)

DATE_FORMAT = "d.m.Y"
DATETIME_FORMAT = "d.m.Y H:i"
