"""A URL's password (or key) kept out of what is shown: a store or server URL (``postgresql://``, ``http://``, libpq's
``key=value`` form) in a message, ``memdir config`` or an error libpq wrote about it.
"""

from __future__ import annotations


#: query parameters whose value is a credential: libpq's passwords, and the keys and tokens an HTTP endpoint (an
#: embedding gateway, a team server) may take in its URL
QUERY_SECRETS = frozenset({"password", "sslpassword", "key", "api_key", "api-key", "apikey", "token", "access_token",
                           "auth", "secret", "client_secret", "sig", "signature"})


def _kv_password():
    import re

    # libpq's key=value form: password=x, password = 'x y' (quoted, backslash escapes)
    return re.compile(r"(?i)\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S+)")


def passwords_of(url: str) -> list[str]:
    """What in ``url`` (a ``postgresql://`` or ``http://`` URL, or libpq's ``key=value`` form) is a password, longest
    first: the userinfo's from its first ``:`` to the host's ``@`` (an ``@`` or a space inside it included), a
    credential query parameter's (:data:`QUERY_SECRETS`), a ``password=`` pair's (quotes dropped)."""
    from urllib.parse import unquote

    if not isinstance(url, str):
        return []
    found: list[str] = []
    head, sep, rest = url.partition("://")
    if sep:
        # the userinfo ends at the last "@" (a "/", "?" or "@" inside an unencoded password included: libpq and
        # urlsplit cut it elsewhere, and the part after the cut would go unmasked)
        user = rest.rpartition("@")[0] if "@" in rest else ""
        if ":" in user:
            found.append(user.partition(":")[2])
        query = rest.partition("?")[2]
        found += [kv.partition("=")[2] for kv in query.split("&")
                  if kv.partition("=")[0].strip().lower() in QUERY_SECRETS]
    for m in _kv_password().finditer(url if not sep else ""):
        v = m.group(2)
        found.append(v[1:-1] if v.startswith("'") and v.endswith("'") and len(v) > 1 else v.lstrip("'"))
    found += [unquote(x) for x in found]
    return sorted({x for x in found if x}, key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """``text`` (an error message about ``url``) with every password of ``url`` (:func:`passwords_of`) masked as
    ``***``: where a URL holds it (``:…@``), wherever else it stands as a word of its own when it has four
    characters or more (libpq quotes a value it could not read), each piece of it a parser cut at ``/ ? @ : #`` or a
    space (three characters or more), and the part of one after an ``@`` that libpq read as the host (``failed to
    resolve host 'ss@…'``)."""
    import re

    for pw in passwords_of(url):
        text = text.replace(f":{pw}@", ":***@")
        # the whole password, and the pieces a parser cut it into at a "/", "?", "@", ":", "#" or a space (libpq names
        # a piece it took for a port, a host or a database), each as a word of its own of three characters or more
        for piece in sorted({pw, *re.split(r"[/?@:#\s]+", pw)}, key=len, reverse=True):
            if len(piece) >= (4 if piece == pw else 3):
                text = re.sub(r"(?<!\w)" + re.escape(piece) + r"(?!\w)", "***", text)
        parts = pw.split("@")
        for i in range(1, len(parts)):  # 'pa@ss@host': libpq took 'ss@host' for the host
            tail = "@".join(parts[i:])
            if tail:
                text = re.sub(r"(?<!\w)" + re.escape(tail) + "@", "***@", text)
    return text


def masked(raw: str) -> str:
    """A setting's value as a message shows it: :func:`safe_url` of a URL, of ``user:password@host`` without a
    scheme, or of libpq's ``key=value`` form."""
    return safe_url(raw) if "://" in raw or "@" not in raw else safe_url("x://" + raw)[4:]


def safe_url(url: str) -> str:
    """``url`` with its password masked (``***``), for messages and ``memdir config``: the userinfo's and a
    credential query parameter's (:data:`QUERY_SECRETS`: libpq's passwords, an endpoint's key or token), and in
    libpq's ``key=value`` form a ``password=`` pair's. A URL that does not parse is masked by :func:`scrub`."""
    from urllib.parse import urlsplit, urlunsplit

    if isinstance(url, str) and "://" not in url:
        return _kv_password().sub(lambda m: m.group(1) + "***", url)
    try:
        p = urlsplit(url)
        netloc, query = p.netloc, p.query
        if p.password:
            netloc = netloc.replace(f":{p.password}@", ":***@")
        if query:
            query = "&".join(f"{k}=***" if k.strip().lower() in QUERY_SECRETS else kv
                             for kv in query.split("&") for k in [kv.partition("=")[0]])
        return scrub(urlunsplit(p._replace(netloc=netloc, query=query)), url)
    except ValueError:
        return scrub(url, url)
