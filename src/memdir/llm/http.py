"""HTTP chat providers with ``httpx2`` (the maintained HTTPX line, already required by the ``mcp`` extra).

* ``openai``: ``POST {distill.url}/chat/completions`` with ``{"model", "messages": [system, user],
  "temperature": 0}``; the reply is ``choices[0].message.content``. ``distill.url`` is the base URL with its
  version segment, e.g. ``http://127.0.0.1:11434/v1`` (Ollama) or ``https://api.openai.com/v1``.
* ``anthropic``: ``POST {distill.url}/v1/messages`` (``/messages`` when the URL already ends in ``/v1``) with
  ``x-api-key`` and ``anthropic-version: 2023-06-01``, ``{"model", "max_tokens", "system", "messages"}``; the
  reply is the concatenated ``text`` blocks of ``content``.

One request per call, no retry (a failed call leaves the turns pending for the next run); the timeout is
``distill.timeout_s`` for the whole call (an endpoint that sends its answer a byte at a time, each read quick, is
cut there too), and a reply over :data:`MAX_REPLY_BYTES` is refused. The key comes from the environment variable named by ``distill.api_key_env`` (default
``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``) and is never written anywhere.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import memdir.netproxy as netproxy
from memdir.errors import install_hint
from memdir.llm.base import MAX_REPLY_BYTES, LLMConfigError, LLMError, LLMUnreachable
from memdir.urlmask import safe_url, scrub

DEFAULT_ANTHROPIC_MODEL = "claude-haiku-4-5"
DEFAULT_ANTHROPIC_URL = "https://api.anthropic.com"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
MAX_TOKENS = 4096
#: hosts that always need a key (a request without one can only fail)
HOSTED = ("api.openai.com", "api.anthropic.com")


def _client_module():
    try:
        import httpx2
    except ImportError:
        raise LLMError(f"the openai/anthropic distill providers need httpx2: {install_hint('distill')}") from None
    return httpx2


def _post(url: str, headers: dict[str, str], body: dict[str, Any], timeout_s: float) -> Any:
    """POST ``body`` as JSON and read the JSON answer within ``timeout_s`` in all. The request runs on a daemon
    thread that this one waits for at most ``timeout_s``: a read timeout alone bounds each read, not the whole
    answer, so an endpoint dripping bytes kept a run waiting for hours. The abandoned thread stops at its next
    read."""
    import json
    import threading

    httpx = _client_module()
    shown = safe_url(url)  # what an error names: the URL with its password masked
    done = threading.Event()
    cancel = threading.Event()
    got: dict[str, Any] = {}

    def ask() -> None:
        try:
            # the environment's proxy and CA file, but not the rest it would read (.netrc logins): see _network
            with httpx.Client(timeout=timeout_s, follow_redirects=False, trust_env=False, **_network(url)) as client:
                with client.stream("POST", url, headers=headers, json=body) as r:
                    got["status"] = r.status_code
                    data = bytearray()
                    for chunk in r.iter_bytes():
                        if cancel.is_set():
                            return
                        data += chunk
                        if len(data) > MAX_REPLY_BYTES:
                            got["error"] = LLMError(f"{shown} answered with more than {MAX_REPLY_BYTES:,} bytes, larger "
                                                    f"than any answer asked for; not read further")
                            return
                    got["data"] = bytes(data)
        except httpx.TimeoutException:
            got["error"] = LLMUnreachable(f"no answer from {shown} within {timeout_s:g} s")
        except httpx.TransportError as exc:  # no connection, refused, reset: not reached at all
            got["error"] = LLMUnreachable(f"request to {shown} failed: {type(exc).__name__}: {scrub(str(exc), url)[:200]}")
        except httpx.HTTPError as exc:
            got["error"] = LLMError(f"request to {shown} failed: {type(exc).__name__}: {scrub(str(exc), url)[:200]}")
        except Exception as exc:  # noqa: BLE001 — said by the caller's thread, as any failed call
            got["error"] = LLMError(f"request to {shown} failed: {type(exc).__name__}: {scrub(str(exc), url)[:200]}")
        finally:
            done.set()

    threading.Thread(target=ask, name="memdir-llm-request", daemon=True).start()
    if not done.wait(timeout_s):
        cancel.set()
        raise LLMUnreachable(f"no answer from {shown} within {timeout_s:g} s")
    if "error" in got:
        raise got["error"]
    text = got.get("data", b"").decode("utf-8", errors="replace")
    if got.get("status", 0) >= 400:
        raise LLMError(f"{shown} answered HTTP {got['status']}: {text[:200]}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit, still not an answer
        raise LLMError(f"{shown} answered with something that is not JSON: {text[:120]!r}") from None


def _network(url: str) -> dict[str, Any]:
    """The proxy and the certificates a request to ``url`` uses, as the other HTTP requests of memdir: the
    environment's proxy unless the endpoint is on this machine or in ``NO_PROXY`` (:mod:`memdir.netproxy`), and the
    CA file or directory of ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` (a company's TLS-inspecting proxy signs with its own)."""
    import ssl

    proxy = netproxy.proxies(url).get(urlsplit(url).scheme.lower())
    cafile, capath = os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None
    out: dict[str, Any] = {"proxy": proxy} if proxy else {}
    if cafile or capath:
        try:
            out["verify"] = ssl.create_default_context(cafile=cafile, capath=capath)
        except (OSError, ssl.SSLError) as exc:
            raise LLMConfigError(f"SSL_CERT_FILE / SSL_CERT_DIR cannot be read as certificates ({exc}): "
                                 "point them at a PEM file or a hashed directory, or unset them") from None
    return out


def _key(config: Any, default_env: str, url: str, provider: str) -> str | None:
    """The API key from the variable ``distill.api_key_env`` names. A hosted API (api.openai.com,
    api.anthropic.com) without one is refused here, once, instead of failing every session's call with 401;
    a self-hosted URL (Ollama, vLLM, a proxy) may need none."""
    env = config.get("distill.api_key_env") or default_env
    key = os.environ.get(env) or None
    if key is None and urlsplit(url).hostname in HOSTED:
        raise LLMConfigError(f"distill.provider {provider!r} at {safe_url(url)} needs an API key: set ${env} "
                       f"(or name another variable in distill.api_key_env, or point distill.url at a server that needs none)")
    return key


def _texts(parts: Any) -> list[str]:
    """The ``text`` of each content part that has one as a string (a server's other shapes are not the reply)."""
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]


class OpenAIChatProvider:
    name = "openai"

    def __init__(self, url: str, model: str, *, api_key: str | None = None, timeout_s: float = 120.0):
        if not url.startswith(("http://", "https://")):
            raise LLMConfigError(f"distill.url {safe_url(url)!r} is not an http(s) URL")
        if not model:
            raise LLMConfigError("the openai distill provider needs distill.model (e.g. gpt-4o-mini, qwen2.5:7b)")
        self.url, self.model_name, self.api_key, self.timeout_s = url.rstrip("/"), model, api_key, timeout_s
        self.model = f"openai:{model}"

    @classmethod
    def from_config(cls, config: Any) -> "OpenAIChatProvider":
        url = config.get("distill.url") or DEFAULT_OPENAI_URL
        provider = cls(url, config.get("distill.model"), timeout_s=config.get("distill.timeout_s"))
        provider.api_key = _key(config, "OPENAI_API_KEY", url, "openai")
        return provider

    def complete(self, system: str, prompt: str) -> str:
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        body = {"model": self.model_name, "temperature": 0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}]}
        data = _post(self.url + "/chat/completions", headers, body, self.timeout_s)
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError("the chat endpoint answered without choices[0].message.content") from None
        if isinstance(content, list):  # some servers answer with content parts
            content = "".join(_texts(content))
        return content if isinstance(content, str) else ""


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, url: str, model: str, *, api_key: str | None = None, timeout_s: float = 120.0):
        if not url.startswith(("http://", "https://")):
            raise LLMConfigError(f"distill.url {safe_url(url)!r} is not an http(s) URL")
        base = url.rstrip("/")
        self.url = base + ("/messages" if base.endswith("/v1") else "/v1/messages")
        self.model_name, self.api_key, self.timeout_s = model or DEFAULT_ANTHROPIC_MODEL, api_key, timeout_s
        self.model = f"anthropic:{self.model_name}"

    @classmethod
    def from_config(cls, config: Any) -> "AnthropicProvider":
        url = config.get("distill.url") or DEFAULT_ANTHROPIC_URL
        provider = cls(url, config.get("distill.model"), timeout_s=config.get("distill.timeout_s"))
        provider.api_key = _key(config, "ANTHROPIC_API_KEY", url, "anthropic")
        return provider

    def complete(self, system: str, prompt: str) -> str:
        headers = {"content-type": "application/json", "anthropic-version": "2023-06-01"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        body = {"model": self.model_name, "max_tokens": MAX_TOKENS, "temperature": 0, "system": system,
                "messages": [{"role": "user", "content": prompt}]}
        data = _post(self.url, headers, body, self.timeout_s)
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise LLMError("the Messages endpoint answered without content blocks")
        return "".join(_texts(b for b in blocks if isinstance(b, dict) and b.get("type", "text") == "text"))
