#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lago.settings")
    from django.core.management import execute_from_command_line

    from lib.catalogues import ensure_compiled

    # Before Django loads a catalogue: a checkout started without `make` speaks German too.
    ensure_compiled()

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
