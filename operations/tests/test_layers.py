"""The apps import downwards only: lib → tracker → notifications → scraping → operations → lago.

Every import counts, function-level ones too; tests and migrations are left out. The project
package (settings, urls, entry points) is the top layer, so no module needs an exemption.
"""

import ast
from pathlib import Path

import pytest
from django.conf import settings

LAYERS = ["lib", "tracker", "notifications", "scraping", "operations", "lago"]


def modules(layer):
    root = Path(settings.BASE_DIR)
    for path in sorted((root / layer).rglob("*.py")):
        relative = path.relative_to(root)
        if not {"tests", "migrations"} & set(relative.parts):
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
