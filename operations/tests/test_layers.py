"""The apps import downwards only: lib → tracker → notifications → scraping → operations.

Every import counts, function-level ones too; tests and migrations are left out. A module
over 300 lines fails too: split it by job.
"""

import ast
from pathlib import Path

import pytest
from django.conf import settings

LAYERS = ["lib", "tracker", "notifications", "scraping", "operations"]
# The project's wiring modules name every app on purpose.
WIRING = {"tracker/settings.py", "tracker/urls.py", "tracker/wsgi.py", "tracker/asgi.py"}
MAX_LINES = 300


def modules(layer):
    root = Path(settings.BASE_DIR)
    for path in sorted((root / layer).rglob("*.py")):
        relative = path.relative_to(root)
        if not {"tests", "migrations"} & set(relative.parts) and str(relative) not in WIRING:
            yield relative, path.read_text(encoding="utf-8")


def imported_layers(source):
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in LAYERS:
                yield name.split(".")[0], node.lineno


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_layers_below_it(layer):
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    wrong = [
        f"{path}:{line} imports {target}"
        for path, source in modules(layer)
        for target, line in imported_layers(source)
        if target not in allowed
    ]
    assert wrong == []


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_over_300_lines(layer):
    long = [f"{path} ({source.count(chr(10))})" for path, source in modules(layer) if source.count("\n") > MAX_LINES]
    assert long == []
