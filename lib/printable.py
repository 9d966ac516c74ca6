"""Text from outside (marketplace titles, ids, chat messages) made safe for a terminal or a log.

A title may carry ESC sequences (recolour, move the cursor, retitle the window), a
carriage return that overwrites the line, or a newline that forges a line of output.
`printable` shows each such character as a visible escape instead; commands and the text log
format both use it.
"""

import re

# C0 controls (ESC, CR, LF, TAB, ...), DEL and C1 controls (CSI, NEL, ...); the Unicode line
# and paragraph separators; the bidirectional overrides and isolates, which reorder what follows.
OTHER_CONTROLS = "\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_UNPRINTABLE = re.compile(f"[\x00-\x1f{OTHER_CONTROLS}]")
_UNPRINTABLE_BUT_NEWLINE = re.compile(f"[\x00-\x09\x0b-\x1f{OTHER_CONTROLS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match):
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def printable(text, keep_newlines=False):
    """`text` with every control character written as an escape (`\\x1b`, `\\n`, `\\u202e`);
    with `keep_newlines`, newlines stay (a traceback's lines)."""
    pattern = _UNPRINTABLE_BUT_NEWLINE if keep_newlines else _UNPRINTABLE
    return pattern.sub(_escape, str(text))
