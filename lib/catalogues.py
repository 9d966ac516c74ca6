"""Compiles the message catalogues (locale/<lang>/LC_MESSAGES/django.po → .mo) in pure Python.

Django's `compilemessages` needs GNU gettext's `msgfmt`, which a fresh machine or the slim
image lacks; polib writes the same .mo files. `make run`, `make test` and the Dockerfile run
`python -m lib.catalogues`; the tests compile stale catalogues themselves (tests/env_defaults.py).
Fuzzy entries are left out, as msgfmt does.

The .mo files are build output, not in git (parallel branches all append to the .po; a binary
beside it would conflict on every merge). So that a checkout started without `make`
(`manage.py migrate`, `runserver`, `qcluster`) speaks German too, manage.py and the WSGI entry
point call `ensure_compiled()` before Django loads any catalogue; the system check lago.W020
warns when one is still missing or stale (a read-only locale directory).
"""

import logging
import sys
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

log = logging.getLogger(__name__)


def catalogues(locale_dir=LOCALE_DIR):
    return sorted(Path(locale_dir).glob("*/LC_MESSAGES/*.po"))


def is_stale(po_path):
    """True when the .mo beside `po_path` is missing or older than the .po."""
    po_path = Path(po_path)
    mo_path = po_path.with_suffix(".mo")
    return not mo_path.exists() or mo_path.stat().st_mtime < po_path.stat().st_mtime


def stale_catalogues(locale_dir=LOCALE_DIR):
    return [po for po in catalogues(locale_dir) if is_stale(po)]


def compile_catalogue(po_path, force=False):
    """Writes the .mo beside `po_path` unless it is newer already; returns True if it wrote one."""
    po_path = Path(po_path)
    mo_path = po_path.with_suffix(".mo")
    if not force and not is_stale(po_path):
        return False
    catalogue = polib.pofile(str(po_path))
    for entry in catalogue.fuzzy_entries():
        catalogue.remove(entry)
    tmp = mo_path.with_suffix(".mo.tmp")
    catalogue.save_as_mofile(str(tmp))
    tmp.replace(mo_path)
    return True


def compile_all(locale_dir=LOCALE_DIR, force=False):
    return [po for po in catalogues(locale_dir) if compile_catalogue(po, force=force)]


def ensure_compiled(locale_dir=LOCALE_DIR):
    """Compiles the missing or stale catalogues at start-up; returns the .po paths it compiled.

    Never stops a start: a catalogue that cannot be written (a read-only image) or read is
    logged, the process runs in English where it lacks German, and `check` warns (lago.W020).
    """
    compiled = []
    for po in stale_catalogues(locale_dir):
        try:
            compile_catalogue(po)
        except (OSError, ValueError) as exc:
            log.warning("cannot compile the message catalogue %s: %s", po, exc)
        else:
            compiled.append(po)
    return compiled


def main(argv):
    paths = [Path(a) for a in argv] or catalogues()
    for po in paths:
        compile_catalogue(po, force=True)
        print(f"compiled {po.with_suffix('.mo')}")


if __name__ == "__main__":
    main(sys.argv[1:])
