"""Compiles the message catalogues (locale/<lang>/LC_MESSAGES/django.po → .mo) in pure Python.

Django's `compilemessages` needs GNU gettext's `msgfmt`, which a fresh machine or the slim
image lacks; polib writes the same .mo files. `make run`, `make test` and the Dockerfile run
`python -m lib.catalogues`; the tests compile stale catalogues themselves (tests/env_defaults.py).
Fuzzy entries are left out, as msgfmt does.
"""

import sys
from pathlib import Path

import polib

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def catalogues(locale_dir=LOCALE_DIR):
    return sorted(Path(locale_dir).glob("*/LC_MESSAGES/*.po"))


def compile_catalogue(po_path, force=False):
    """Writes the .mo beside `po_path` unless it is newer already; returns True if it wrote one."""
    po_path = Path(po_path)
    mo_path = po_path.with_suffix(".mo")
    if not force and mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
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


def main(argv):
    paths = [Path(a) for a in argv] or catalogues()
    for po in paths:
        compile_catalogue(po, force=True)
        print(f"compiled {po.with_suffix('.mo')}")


if __name__ == "__main__":
    main(sys.argv[1:])
