"""Text from outside (marketplace titles, ids, response excerpts) made safe for a terminal.

A title may carry ESC sequences (recolour, move the cursor, retitle the window), a
carriage return that overwrites the line, or a newline that forges a line of output.
`printable` shows each such character as a visible escape instead.
"""

import re

# C0 controls (ESC, CR, LF, TAB, ...), DEL and C1 controls (CSI, NEL, ...); the Unicode line
# and paragraph separators; the bidirectional overrides and isolates, which reorder what follows.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match):
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}")


def printable(text):
    """`text` with every control character written as an escape (`\\x1b`, `\\n`, `\\u202e`)."""
    return _UNPRINTABLE.sub(_escape, str(text))
