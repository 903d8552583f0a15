"""Default transcript locations per host, and expansion of a user-given path into files to import.

| host | default location | override |
|---|---|---|
| ``claude-code`` | ``~/.claude/projects/**/*.jsonl`` (sessions and ``<session>/subagents/*.jsonl``) | ``$CLAUDE_CONFIG_DIR`` replaces ``~/.claude`` |
| ``codex`` | ``~/.codex/sessions/**/rollout-*.jsonl`` | ``$CODEX_HOME`` replaces ``~/.codex`` |
| ``opencode`` | ``~/.local/share/opencode/opencode.db`` and ``…/opencode/storage/`` | ``$XDG_DATA_HOME`` replaces ``~/.local/share`` |
| ``claude-export`` | none: a path must be given (``/export`` writes where the user says) | |
| ``specstory`` | ``<project>/.specstory/history/*.md`` | |
| ``aider`` | ``<project>/.aider.chat.history.md`` | |
| ``dsh`` | ``~/.dsh/sessions/*/*/session.jsonl.zstd`` (and ``session.jsonl``) | ``$DSH_HOME`` replaces ``~/.dsh`` |
| ``jsonl`` | none: a path must be given | |

``specstory`` and ``aider`` live in the project, not in the home directory: their default location is under the
``project`` given (the project root of the import). :func:`project_transcripts` lists both for ``memdir import``
without a source. Only paths that exist are returned, sorted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memdir.errors import UsageError
from memdir.roots import expand_user

HOSTS = ("claude-code", "codex", "opencode", "jsonl", "claude-export", "specstory", "aider", "dsh")
#: the sources whose transcripts are kept inside the project they belong to
PROJECT_HOSTS = ("specstory", "aider")
#: DSH: <root>/<project>/<session>/session.jsonl.zstd (memdir.portability.importers.dsh)
DSH_LOGS = ("**/session.jsonl.zstd", "**/session.jsonl")


def _check(host: str) -> None:
    if host not in HOSTS:
        raise UsageError(f"unknown transcript source {host!r}: use one of {', '.join(HOSTS)}")


def _in_project(host: str, project: Path) -> list[Path]:
    if host == "specstory":
        hist = project / ".specstory" / "history"
        return sorted(p for p in hist.glob("*.md") if p.is_file()) if hist.is_dir() else []
    f = project / ".aider.chat.history.md"
    return [f] if f.is_file() else []


def _says(path: Path, marker: bytes) -> bool:
    """True when ``marker`` is in the first 300 bytes of ``path`` (SpecStory names itself in its first lines)."""
    try:
        with open(path, "rb") as fh:
            return marker in fh.read(300)
    except OSError:
        return False


def project_transcripts(project: str | Path) -> dict[str, list[Path]]:
    """The transcripts ``project`` holds itself, ``{source: [files]}`` for each of :data:`PROJECT_HOSTS` that has
    any (``{}`` when none): ``.specstory/history/*.md`` and ``.aider.chat.history.md`` at the project root."""
    found = {h: _in_project(h, Path(project)) for h in PROJECT_HOSTS}
    return {h: files for h, files in found.items() if files}


def default_paths(host: str, *, env: Mapping[str, str] | None = None, home: Path | None = None,
                  project: Path | None = None) -> list[Path]:
    """Existing transcript files (or, for OpenCode, the database file and the storage directory) of ``host``.

    env/home: stand-ins for ``os.environ`` and ``Path.home()`` (tests). project: the project root whose own
    transcripts ``specstory``/``aider`` read (default: the working directory). Returns ``[]`` when nothing is
    there. Raises ``memdir.errors.UsageError`` for an unknown host.
    """
    _check(host)
    if host in PROJECT_HOSTS:
        return _in_project(host, Path.cwd() if project is None else Path(project))
    env = os.environ if env is None else env
    home = Path.home() if home is None else Path(home)
    if host == "claude-code":
        base = expand_user(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        projects = base / "projects"
        return tree(projects, "*.jsonl") if projects.is_dir() else []
    if host == "codex":
        base = expand_user(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
        sessions = base / "sessions"
        return tree(sessions, "rollout-*.jsonl") if sessions.is_dir() else []
    if host == "opencode":
        data = expand_user(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
        base = data / "opencode"
        out = []
        if (base / "opencode.db").is_file():
            out.append(base / "opencode.db")
        if (base / "storage" / "message").is_dir():
            out.append(base / "storage")
        return out
    if host == "dsh":
        return _dsh_logs(_dsh_sessions(env, home))
    return []


def _dsh_sessions(env: Mapping[str, str], home: Path) -> Path:
    base = env.get("DSH_HOME", "")
    return (expand_user(base) if base.strip() else home / ".dsh") / "sessions"


def _dsh_logs(root: Path) -> list[Path]:
    return sorted({p for name in DSH_LOGS for p in tree(root, name.rpartition("/")[2])}) if root.is_dir() else []


def tree(root: Path, name: str) -> list[Path]:
    """The regular files under the directory ``root``, at any depth, whose name matches the glob ``name``, sorted.
    Linked folders are followed (a project's transcripts moved to another disk and linked back; ``rglob`` skips
    them), each real folder entered once, so a link loop ends."""
    import fnmatch

    seen: set[str] = set()
    found: list[Path] = []
    for top, dirs, files in os.walk(root, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        found += [Path(top) / f for f in files if fnmatch.fnmatchcase(f, name)]
    return sorted(f for f in found if f.is_file())


def default_locations(host: str, *, env: Mapping[str, str] | None = None, home: Path | None = None,
                      project: Path | None = None) -> list[Path]:
    """Where :func:`default_paths` looks for ``host``'s transcripts (whether or not they exist), for messages."""
    _check(host)
    if host in PROJECT_HOSTS:
        root = Path.cwd() if project is None else Path(project)
        return [root / ".specstory" / "history"] if host == "specstory" else [root / ".aider.chat.history.md"]
    env = os.environ if env is None else env
    home = Path.home() if home is None else Path(home)
    if host == "claude-code":
        return [(expand_user(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude") / "projects"]
    if host == "codex":
        return [(expand_user(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex") / "sessions"]
    if host == "opencode":
        base = (expand_user(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share") / "opencode"
        return [base / "opencode.db", base / "storage"]
    if host == "dsh":
        return [_dsh_sessions(env, home)]
    return []


def _memdir_own(f: Path, base: Path) -> bool:
    """True when ``f``, found under the directory ``base``, lies in a memory root (``.memory/``) or its index
    directory (``.memdir/``): memdir's own notes, tombstones and spool, not a host's transcripts."""
    return any(part in (".memory", ".memdir") for part in f.relative_to(base).parts[:-1])


def resolve_paths(host: str, path: str | Path | None = None, **kw) -> list[Path]:  # kw: default_paths' env/home/project
    """Files to import for ``host``: ``default_paths(host)`` when ``path`` is None, else ``path`` expanded.

    A file is returned as is. A directory is searched, its linked folders too (:func:`tree`): ``**/*.jsonl``
    (claude-code), ``**/rollout-*.jsonl`` (codex), ``*.jsonl`` (jsonl), ``**/*.txt`` (claude-export); for specstory a project
    (its ``.specstory/history/*.md``) or any directory (``**/*.md`` that name SpecStory in their first lines), for aider a project (its
    ``.aider.chat.history.md``) or any directory (``**/.aider.chat.history.md``, else ``*.md``); for opencode the
    directory itself is returned (the importer accepts a data dir or a storage dir). Raises ``memdir.errors.UsageError`` for an
    unknown host or a path that does not exist.
    """
    _check(host)
    if path is None:
        return default_paths(host, **kw)
    p = expand_user(path)
    if not p.exists():
        raise UsageError(f"{p} does not exist: give a transcript file or directory")
    if p.is_file() or host == "opencode":
        return [p]
    if host == "dsh":
        return _dsh_logs(p)
    if host in PROJECT_HOSTS and _in_project(host, p):
        return _in_project(host, p)
    name = {"claude-code": "*.jsonl", "codex": "rollout-*.jsonl", "jsonl": "*.jsonl", "claude-export": "*.txt",
            "specstory": "*.md", "aider": ".aider.chat.history.md"}[host]
    found = sorted(f for f in p.glob(name) if f.is_file()) if host == "jsonl" else tree(p, name)
    # never memdir's own files (a project's .memory/.memdir/tombstones.jsonl is JSONL too)
    found = [f for f in found if not _memdir_own(f, p)]
    if host == "specstory":  # any Markdown under the directory: only SpecStory's own files
        found = [f for f in found if _says(f, b"SpecStory")]
    if host == "aider" and not found:  # a directory of histories under other names (copies, --chat-history-file)
        found = sorted(f for f in p.glob("*.md") if f.is_file())
    return found
