"""Which of memdir's HTTP requests go through the environment's proxy (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``,
``NO_PROXY``, upper or lower case, as curl reads them): every request but one to this machine. A team server or an
embedding endpoint on ``127.0.0.1``, ``[::1]`` or ``localhost`` is asked directly: a company proxy cannot reach the
user's loopback, and a dead or slow one would fail every push, recall and hook. ``ALL_PROXY`` counts for a scheme
whose own variable is unset when it names an ``http://`` proxy (urllib alone ignores it; a SOCKS one it cannot use).
"""

from __future__ import annotations

import urllib.parse
import urllib.request

#: the proxy variables, in the order they are named in messages
VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


def loopback(url: str) -> bool:
    """Whether ``url``'s host is this machine: ``localhost`` (and ``*.localhost``), 127.0.0.0/8, ``::1`` or an
    IPv4-mapped loopback address."""
    import ipaddress

    try:
        host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def proxies(url: str) -> dict[str, str]:
    """The proxies a request to ``url`` uses, by scheme (what ``urllib.request.ProxyHandler`` takes): none for this
    machine or a host ``NO_PROXY`` names, else the environment's (``ALL_PROXY`` filling in an unset scheme)."""
    if loopback(url):
        return {}
    try:
        host = urllib.parse.urlsplit(url).netloc.rpartition("@")[2]
    except ValueError:
        host = ""
    found = urllib.request.getproxies()
    if host and urllib.request.proxy_bypass(host):
        return {}
    every = found.get("all", "")
    out = {k: v for k, v in found.items() if k in ("http", "https") and v}
    if every.lower().startswith(("http://", "https://")):
        for scheme in ("http", "https"):
            out.setdefault(scheme, every)
    return out


def handler(url: str) -> urllib.request.ProxyHandler:
    """A ``ProxyHandler`` for a request to ``url`` (:func:`proxies`): build an opener with it first."""
    return urllib.request.ProxyHandler(proxies(url))


def opener(url: str, *handlers) -> urllib.request.OpenerDirector:
    """``urllib.request.build_opener`` for a request to ``url``, its proxy chosen by :func:`proxies`."""
    return urllib.request.build_opener(handler(url), *handlers)


def via(url: str) -> str:
    """`` (through the proxy P of HTTPS_PROXY)`` when a request to ``url`` goes through a proxy, for an error line
    (the proxy's password masked); ``""`` when it is asked directly."""
    import os

    from memdir.urlmask import safe_url

    try:
        scheme = urllib.parse.urlsplit(url).scheme.lower()
    except ValueError:
        return ""
    proxy = proxies(url).get(scheme)
    if not proxy:
        return ""
    names = [f"{scheme.upper()}_PROXY", f"{scheme}_proxy", "ALL_PROXY", "all_proxy"]
    name = next((n for n in names if os.environ.get(n) == proxy), names[0])
    return f" (through the proxy {safe_url(proxy)} of {name}; NO_PROXY lists the hosts asked directly)"


def tls_fix(message: str) -> str | None:
    """What to do when ``message`` (a failed request's error) says the server's certificate is not trusted — a
    self-signed one, or a company proxy that inspects TLS with its own CA — or ``None`` for any other failure."""
    low = str(message).lower()
    if "certificate_verify_failed" not in low and "certificate verify failed" not in low:
        return None
    return ("this machine does not trust the server's certificate (self-signed, or a company proxy's own CA): set "
            "SSL_CERT_FILE to a PEM file holding that CA (REQUESTS_CA_BUNDLE is not read), or SSL_CERT_DIR")
