"""The German catalogue: complete, compiled from the .po in pure Python, and what the admin
shows."""

import os
import re
import shutil
import subprocess
import sys

import polib
import pytest
from django.conf import settings

from lib.catalogues import compile_catalogue
from tests.factories import make_keyword
from tests.processes import copy_project

PO = settings.BASE_DIR / "locale" / "de" / "LC_MESSAGES" / "django.po"
# What makemessages reads: the apps and templates, not tests or build output.
SOURCES = [
    "lib",
    "lago",
    "tracker",
    "notifications",
    "scraping",
    "operations",
    "templates",
    "manage.py",
]


def untranslated(po):
    return [e.msgid for e in po if not e.obsolete and (not e.translated() or "fuzzy" in e.flags)]


def test_every_german_entry_is_translated_and_none_is_fuzzy():
    po = polib.pofile(str(PO))
    assert len(po) > 300
    assert untranslated(po) == []
    assert po.percent_translated() == 100


def test_placeholders_survive_translation():
    for entry in polib.pofile(str(PO)):
        for source, target in [
            (entry.msgid, entry.msgstr),
            *((entry.msgid_plural, t) for t in entry.msgstr_plural.values()),
        ]:
            if source and target:
                assert sorted(_placeholders(source)) == sorted(_placeholders(target)), entry.msgid


def _placeholders(text):
    return re.findall(r"%\(\w+\)[sd]|%%", text)


@pytest.mark.skipif(
    shutil.which("xgettext") is None and not os.environ.get("CI"),
    reason="makemessages needs GNU gettext's xgettext (apt-get install gettext)",
)
def test_makemessages_finds_no_string_without_a_german_translation(tmp_path):
    """Every gettext string in the code has its German text: makemessages on a copy adds nothing
    untranslated."""
    copy_project(tmp_path, SOURCES)
    shutil.copytree(
        settings.BASE_DIR / "locale", tmp_path / "locale", ignore=shutil.ignore_patterns("*.mo")
    )
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "makemessages",
            "-l",
            "de",
            "--no-location",
            "--verbosity",
            "0",
        ],
        cwd=tmp_path,
        check=True,
        env={
            "PATH": "/usr/bin:/bin",
            "SECRET_KEY": "lago-test-only-secret-key",
            "DEBUG": "true",
            "PYTHONPATH": str(tmp_path),
        },
    )
    assert (
        untranslated(polib.pofile(str(tmp_path / "locale" / "de" / "LC_MESSAGES" / "django.po")))
        == []
    )


def test_the_catalogue_compiles_in_pure_python(tmp_path):
    po = tmp_path / "django.po"
    shutil.copy(PO, po)
    assert compile_catalogue(po) is True
    assert compile_catalogue(po) is False  # up to date
    mo = polib.mofile(str(po.with_suffix(".mo")))
    assert {e.msgid: e.msgstr for e in mo}["New ad"] == "Neue Anzeige"


@pytest.mark.django_db
def test_keyword_changelist_is_german(admin_client):
    make_keyword(name="fahrrad", query="fahrrad")
    page = admin_client.get("/admin/tracker/keyword/").content.decode()
    assert "Suchbegriffe" in page and "Suchbegriff zur Änderung auswählen" in page
    assert (
        "Jetzt ausführen (Abfrage einreihen)" in page and "Pausieren (nicht mehr einplanen)" in page
    )
    assert "Keywords" not in page


@pytest.mark.django_db
def test_admin_is_english_with_language_code_en(admin_client, settings):
    settings.LANGUAGE_CODE = "en-us"
    make_keyword(name="fahrrad", query="fahrrad")
    page = admin_client.get("/admin/tracker/keyword/").content.decode()
    assert "Select keyword to change" in page and "Suchbegriffe" not in page
