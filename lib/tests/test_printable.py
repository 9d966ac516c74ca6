"""lib.printable.printable: marketplace text cannot drive the terminal it is printed on."""

import pytest

from lib.printable import printable


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J\x1b[31mred", "\\x1b[2J\\x1b[31mred"),
        ("line\nforged", "line\\nforged"),
        ("over\rwrite", "over\\rwrite"),
        ("tab\there", "tab\\there"),
        ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
        ("\x9b31m", "\\x9b31m"),  # C1 CSI: one byte, same effect as ESC [
        ("\x85next", "\\x85next"),
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
        ("\u202egnp.exe", "\\u202egnp.exe"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
    ],
)
def test_control_characters_are_shown_as_escapes(text, shown):
    assert printable(text) == shown


def test_ordinary_text_is_unchanged():
    text = 'Fahrrad "Cube" – 29 Zoll, Größe L 🚲 👨‍👩‍👧 € 1.200,- C:\\temp'
    assert printable(text) == text
