"""Drive the real hosts headless against the stub model (see ``e2e_stub_model.py``) in scratch HOMEs.

One :class:`Scratch` per host and scope: a HOME, a git project with two seeded memories (a rule and a fact),
the host's own base configuration (provider → stub), then ``memdir install <host> [--project]``. Each
:meth:`Scratch.run` starts a fresh stub log, runs the host once and returns a :class:`Run` with the logged
request bodies, the host's stdout/stderr and the hook wall times memdir logged during the run.

Host binaries come from ``MEMDIR_E2E_BIN`` (a ``:``-separated list of directories, set by ``make e2e`` from
``install_hosts.sh``) or PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import e2e_stub_model as stub_model  # noqa: E402

#: the suite's settings, read at import (the test session's fixtures clear MEMDIR_* variables later)
E2E_ENV = {k: v for k, v in os.environ.items() if k.startswith("MEMDIR_E2E")}
BIN_NAMES = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}
PROMPT = "How do we deploy this service? Check the shell first."
MCP_PROMPT = "What do you remember about deploys? " + stub_model.MCP_MARK
RULE = "Always use pnpm, never npm"
FACT = "Deploys run with make ship from the repo root"
RUN_TIMEOUT_S = 240
MEMORY_BLOCK = re.compile(r"<memory>.*?</memory>", re.S)
#: stderr lines that come from the host's environment, not from memdir (sandbox helper, stub model metadata)
HOST_NOISE = re.compile(r"bubblewrap|Model metadata for|PATH aliases|Reading additional input from stdin|"
                        r"sandboxing#prerequisites|^\s*$", re.I)


def host_bin(host: str) -> str | None:
    dirs = [d for d in E2E_ENV.get("MEMDIR_E2E_BIN", "").split(os.pathsep) if d]
    name = BIN_NAMES[host]
    for d in dirs:
        p = Path(d) / name
        if p.exists():
            return str(p)
    return shutil.which(name)


def host_version(host: str) -> str:
    exe = host_bin(host)
    if not exe:
        return "missing"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    m = re.search(r"\d+\.\d+\.\d+", out)
    return m.group(0) if m else out


def memdir_bin() -> str:
    p = Path(sys.executable).with_name("memdir")
    return str(p) if p.exists() else shutil.which("memdir") or "memdir"


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]
    hook_ms: list[tuple[str, float]] = field(default_factory=list)  # (event, ms) per memdir hook call

    def model_requests(self) -> list[dict[str, Any]]:
        """Requests to a model endpoint (not probes)."""
        return [r for r in self.requests if r["method"] == "POST" and isinstance(r["body"], dict)
                and any(r["path"].split("?")[0].endswith(s) for s in ("/messages", "/responses", "/chat/completions"))]

    def agent_requests(self) -> list[dict[str, Any]]:
        """Model requests that offer tools (the agent's turns; title/summary helpers offer none)."""
        return [r for r in self.model_requests() if stub_model.tool_names(r["body"])]

    def helper_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.model_requests() if not stub_model.tool_names(r["body"])]

    def stderr_lines(self) -> list[str]:
        return [l for l in self.stderr.splitlines() if not HOST_NOISE.search(l)]


def blocks_in(body: Any) -> list[str]:
    """Every ``<memory>…</memory>`` block in a request body (JSON-decoded text)."""
    return MEMORY_BLOCK.findall(_all_text(body))


def _all_text(obj: Any) -> str:
    if isinstance(obj, str):
        return obj + "\n"
    if isinstance(obj, dict):
        return "".join(_all_text(v) for v in obj.values())
    if isinstance(obj, list):
        return "".join(_all_text(v) for v in obj)
    return ""


def tool_results(body: dict[str, Any]) -> list[str]:
    """Texts of tool results in a request (all three wire formats)."""
    out = []
    for it in body.get("input") or []:
        if isinstance(it, dict) and it.get("type", "").endswith("_output"):
            out.append(_all_text(it.get("output")))
    for m in body.get("messages") or []:
        if m.get("role") == "tool":
            out.append(_all_text(m.get("content")))
        elif isinstance(m.get("content"), list):
            out += [_all_text(c.get("content")) for c in m["content"] if isinstance(c, dict) and c.get("type") == "tool_result"]
    return out


class Scratch:
    """A scratch HOME + project for one host and scope (``project`` = ``memdir install --project``)."""

    def __init__(self, root: Path, host: str, *, project: bool):
        self.root, self.host, self.project_scope = root, host, project
        self.home = root / "home"
        self.proj = root / "proj"
        self.home.mkdir(parents=True)
        self.proj.mkdir()
        subprocess.run(["git", "init", "-q", str(self.proj)], check=True)
        self.log = root / "requests.jsonl"
        self.server = stub_model.serve(str(self.log))
        self.port = self.server.server_address[1]
        self.env = self._env()
        self.memdir_home = Path(self.env["MEMDIR_HOME"])
        self.memdir(["remember", "--category", "rules", RULE])
        self.memdir(["remember", FACT])
        self.base_config()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ---- environment and host configuration -------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "SSL_CERT_FILE")}
        bin_dir = str(Path(memdir_bin()).parent)
        env = {**keep, "HOME": str(self.home), "USERPROFILE": str(self.home),
               "PATH": os.pathsep.join([bin_dir, *E2E_ENV.get("MEMDIR_E2E_BIN", "").split(os.pathsep),
                                        keep.get("PATH", "/usr/bin:/bin")]),
               "MEMDIR_HOME": str(self.home / "memdir-global"), "MEMDIR_DEBUG": "1",
               "XDG_CONFIG_HOME": str(self.home / ".config"), "XDG_DATA_HOME": str(self.home / ".local" / "share"),
               "XDG_CACHE_HOME": str(self.home / ".cache"), "XDG_STATE_HOME": str(self.home / ".local" / "state"),
               "CODEX_HOME": str(self.home / ".codex"),
               # Claude Code
               "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}", "ANTHROPIC_API_KEY": "sk-ant-e2e",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
               # Codex
               "STUB_API_KEY": "sk-e2e", "NO_COLOR": "1",
               # OpenCode
               "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
               "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
               "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1"}
        return env

    def base_config(self) -> None:
        """The user's own host configuration before memdir: a provider pointing at the stub plus a few
        entries of the user's (which must survive install and uninstall untouched)."""
        if self.host == "claude-code":
            p = self.home / ".claude" / "settings.json"
            p.parent.mkdir(parents=True)
            p.write_text(json.dumps({"env": {"USER_SETTING": "1"}, "hooks": {"Stop": [{"hooks": [
                {"type": "command", "command": "true # user's own hook"}]}]}}, indent=2))
            (self.home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True, "mcpServers": {}}))
        elif self.host == "codex":
            ch = self.home / ".codex"
            ch.mkdir(parents=True)
            (ch / "config.toml").write_text(
                "# the user's Codex settings\n"
                'model = "stub-model"\nmodel_provider = "stub"\n\n'
                f'[model_providers.stub]\nname = "stub"\nbase_url = "http://127.0.0.1:{self.port}/v1"\n'
                'wire_api = "responses"\nenv_key = "STUB_API_KEY"\n\n'
                f'[projects."{self.proj}"]\ntrust_level = "trusted"  # what Codex writes when the user trusts it\n')
        else:
            d = self.home / ".config" / "opencode"
            d.mkdir(parents=True)
            (d / "opencode.json").write_text(json.dumps({
                "$schema": "https://opencode.ai/config.json", "model": "stub/stub-model", "autoupdate": False,
                "share": "disabled",
                "provider": {"stub": {"npm": "@ai-sdk/openai-compatible", "name": "stub",
                                      "options": {"baseURL": f"http://127.0.0.1:{self.port}/v1", "apiKey": "sk-e2e"},
                                      "models": {"stub-model": {"name": "stub-model", "tool_call": True}}}}}, indent=2))
            self._restore_opencode_deps()

    def config_files(self) -> list[Path]:
        """The host files memdir edits (user and project scope)."""
        h, p = self.home, self.proj
        return {"claude-code": [h / ".claude" / "settings.json", h / ".claude.json", p / ".claude" / "settings.json",
                                p / ".mcp.json"],
                "codex": [h / ".codex" / "config.toml", h / ".codex" / "hooks.json", p / ".codex" / "hooks.json",
                          p / ".codex" / "config.toml"],
                "opencode": [h / ".config" / "opencode" / "opencode.json", p / "opencode.json",
                             h / ".config" / "opencode" / "plugins" / "memdir.js",
                             p / ".opencode" / "plugins" / "memdir.js"]}[self.host]

    # OpenCode installs @opencode-ai/plugin into each config folder that has plugins (npm, ~15 s): keep one copy
    def _opencode_dep_cache(self) -> Path | None:
        c = E2E_ENV.get("MEMDIR_E2E_CACHE")
        return Path(c) / f"opencode-config-deps-{host_version('opencode')}" if c else None

    def _restore_opencode_deps(self) -> None:
        cache = self._opencode_dep_cache()
        if cache is None or not (cache / "package.json").exists():
            return
        for d in (self.home / ".config" / "opencode", self.proj / ".opencode"):
            d.mkdir(parents=True, exist_ok=True)
            for name in ("package.json", "package-lock.json", "node_modules"):
                src = cache / name
                if src.is_dir():
                    shutil.copytree(src, d / name, symlinks=True, dirs_exist_ok=True)
                elif src.exists():
                    shutil.copy2(src, d / name)

    def save_opencode_deps(self) -> None:
        cache = self._opencode_dep_cache()
        src = self.home / ".config" / "opencode"
        if cache is None or (cache / "package.json").exists() or not (src / "node_modules").is_dir():
            return
        tmp = cache.with_name(cache.name + f".tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json", "node_modules"):
            if (src / name).is_dir():
                shutil.copytree(src / name, tmp / name, symlinks=True)
            elif (src / name).exists():
                shutil.copy2(src / name, tmp / name)
        try:
            tmp.rename(cache)
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)

    # ---- memdir ---------------------------------------------------------------------------------------------
    def memdir(self, args: list[str], *, check: bool = True) -> subprocess.CompletedProcess:
        env = {**self.env}
        env.pop("MEMDIR_DEBUG", None)
        r = subprocess.run([memdir_bin(), *args], cwd=self.proj, env=env, capture_output=True, text=True, timeout=120)
        if check and r.returncode != 0:
            raise AssertionError(f"memdir {' '.join(args)} failed ({r.returncode}): {r.stderr}")
        return r

    def install(self, *, uninstall: bool = False) -> dict[str, Any]:
        args = ["install", self.host, "--json"] + (["--project"] if self.project_scope else []) + (["--uninstall"] if uninstall else [])
        return json.loads(self.memdir(args).stdout)

    def events(self) -> list[dict[str, Any]]:
        out = self.memdir(["export", "-"]).stdout
        return [e for e in (json.loads(l) for l in out.splitlines() if l.strip()) if e.get("type") == "event"]

    def hook_times(self) -> list[tuple[str, float]]:
        log = self.memdir_home / ".memdir" / "debug.log"
        if not log.exists():
            return []
        found = re.findall(r"hook (\S+) (\S+): done in (\d+) ms(?: \(process (\d+) ms\))?",
                           log.read_text(encoding="utf-8", errors="replace"))
        return [(ev, float(proc or ms)) for _h, ev, ms, proc in found]  # whole process when known

    # ---- one host run ---------------------------------------------------------------------------------------
    def argv(self, prompt: str) -> list[str]:
        exe = host_bin(self.host)
        if self.host == "claude-code":
            return [exe, "-p", prompt, "--output-format", "json",
                    "--allowedTools", "Bash", "mcp__memdir__memory_recall"]
        if self.host == "codex":
            return [exe, "exec", "--skip-git-repo-check", "-s", "danger-full-access", "--json", prompt]
        return [exe, "run", "--format", "json", prompt]

    def run(self, prompt: str = PROMPT) -> Run:
        if self.log.exists():
            self.log.unlink()
        before = len(self.hook_times())
        r = subprocess.run(self.argv(prompt), cwd=self.proj, env=self.env, capture_output=True, text=True,
                           timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
        time.sleep(1.0)  # detached captures (OpenCode's reply) finish after the host exits
        reqs = [json.loads(l) for l in self.log.read_text().splitlines()] if self.log.exists() else []
        if self.host == "opencode":
            self.save_opencode_deps()
        return Run(r.returncode, r.stdout, r.stderr, reqs, self.hook_times()[before:])
