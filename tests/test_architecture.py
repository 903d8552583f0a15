"""The house rules of docs/ARCHITECTURE.md, checked on the source: the import contract (layers, the two index engines
independent, no cycles between siblings), no private name used across modules, empty subpackage ``__init__``s on
the hook path, module and class sizes, and one declaration per extension point (memdir.registry)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "memdir"
REPO = SRC.parents[1]

#: modules allowed over MAX_MODULE_LINES, each with its reason
LONG_MODULES = {
    "recall/glossary.py": "the bilingual glossary table (data)",
    "capture/redact.py": "the secret detectors, one rule each (data)",
}
#: classes allowed over MAX_CLASS_LINES, each with its reason
LONG_CLASSES = {
    "store/sqlite/store.py:SqliteStore": "one short method per Store operation (the protocol is wide; each is one statement)",
    "engine/root.py:Root": "a root's files and its index mirror: open, lock, sync hand edits, compile",
    "core.py:Memdir": "the facade: one docstring and one delegating statement per public method (docs/API.md lists them)",
}
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 400
#: packages whose ``__init__`` must import nothing at run time (the hook path pays for every import)
EMPTY_INITS = ("recall", "notes", "capture", "inject", "store", "store/sqlite", "store/postgres", "engine",
               "portability", "distill", "hosts", "server", "cli")


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def test_the_import_contract_holds():
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if exe is None:
        pytest.skip("lint-imports is not installed (pip install import-linter; `make test` installs it)")
    r = subprocess.run([exe, "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout
    config = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "ignore_imports" not in config  # the contract holds without exceptions


def test_no_private_name_is_used_across_modules():
    mods = dict(_modules())
    bad = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memdir"):
                for a in node.names:
                    full = f"{node.module}.{a.name}"
                    if full in mods:
                        aliases[a.asname or a.name] = full
                    elif a.name.startswith("_") and not a.name.startswith("__") and node.module != name:
                        bad.append(f"{name}: from {node.module} import {a.name}")
            elif isinstance(node, ast.Import):
                aliases.update({a.asname: a.name for a in node.names if a.name.startswith("memdir") and a.asname})
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                if node.attr.startswith("_") and not node.attr.startswith("__") and aliases[node.value.id] != name:
                    bad.append(f"{name}: {aliases[node.value.id]}.{node.attr}")
            # the facade and the roots are reached through public names only (m._root, root._store …)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("m", "root", "r", "project") and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                bad.append(f"{name}: {node.value.id}.{node.attr}")
    assert bad == []


def test_subpackage_inits_import_nothing_at_run_time():
    for pkg in EMPTY_INITS:
        tree = ast.parse((SRC / pkg / "__init__.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            assert not isinstance(node, (ast.Import, ast.ImportFrom)), f"{pkg}/__init__.py imports at run time"


def test_modules_and_classes_stay_small_or_say_why():
    long_modules, long_classes = {}, {}
    for _, path in _modules():
        rel = str(path.relative_to(SRC))
        text = path.read_text(encoding="utf-8")
        n = text.count("\n")
        if n > MAX_MODULE_LINES:
            long_modules[rel] = n
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                long_classes[f"{rel}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert set(long_modules) <= set(LONG_MODULES), {k: v for k, v in long_modules.items() if k not in LONG_MODULES}
    assert set(long_classes) <= set(LONG_CLASSES), {k: v for k, v in long_classes.items() if k not in LONG_CLASSES}
    assert all(LONG_MODULES.values()) and all(LONG_CLASSES.values())  # each exception says why


def test_the_facade_only_delegates():
    tree = ast.parse((SRC / "core.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Memdir")
    assert cls.end_lineno - cls.lineno + 1 <= 450
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
        if fn.name == "__init__":
            continue
        assert not fn.name.startswith("_") or fn.name.startswith("__"), f"private method {fn.name} on the facade"
        body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        body = [s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        assert len(body) <= 1, f"Memdir.{fn.name} does more than delegate"
        assert ast.get_docstring(fn) or fn.name.startswith("__"), f"Memdir.{fn.name} has no docstring"


def test_every_extension_point_resolves():
    from memdir import registry
    from memdir.hosts import adapters
    from memdir.portability import importers

    assert set(registry.HOSTS) == set(adapters.HOSTS)
    for entry in registry.HOSTS.values():
        assert callable(registry.resolve(entry["parse"]))
        assert entry["render"] is None or callable(registry.resolve(entry["render"]))
    for target, _, _ in registry.EMBED.values():
        module, _, attr = target.partition(":")
        assert attr and (SRC.parent / Path(*module.split("."))).with_suffix(".py").is_file(), target
    for table in (registry.LLM, registry.IMPORTERS, registry.RERANKERS, registry.COMMANDS):
        for target in table.values():
            module, _, attr = target.partition(":")
            path = SRC.parent / Path(*module.split("."))
            assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), target
            src = (path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py").read_text()
            assert f"def {attr}" in src or f"{attr} =" in src or f"{attr}," in src, target
    assert set(importers.IMPORTERS) == set(registry.IMPORTERS)


def test_registry_imports_nothing():
    r = subprocess.run([sys.executable, "-c", "import sys; import memdir.registry; "
                        "print(sorted(m for m in sys.modules if m.startswith('memdir')))"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "['memdir', 'memdir.errors', 'memdir.registry']"  # the package itself imports errors
