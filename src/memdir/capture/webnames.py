"""Does a tool's name say it reads the web? :func:`names_web_tool`, by the words of the name, for the tools
:data:`memdir.capture.gates.WEB_TOOLS`' patterns do not list: every search engine, scraper and hosted browser has its
own MCP server (``mcp__kagi__kagi_search``, ``mcp__perplexity__perplexity_ask``, ``mcp__jina__read_url``), and new ones
appear each month, so a name is judged by what it is made of rather than looked up.

A name is split into lower-case words (``mcp__google-search__search`` → ``mcp google search search``;
``readUrlContent`` → ``read url content``). It reads the web when

* a word names a web search, answer, scraping or hosted-browser service (:data:`WEB_SERVICES`: ``tavily``, ``exa``,
  ``kagi``, ``firecrawl`` …), or ``google``/``bing``-style engines next to ``search``;
* a word is the web itself (``web``, ``www``, ``internet``, ``http``): ``search_web``, ``brave_web_search``;
* a reading verb goes with a web noun (``read_url``, ``read_url_content``, ``scrape_page``, ``open_link``);
* an MCP server's own name says it fetches, scrapes, crawls or searches (``mcp__mcp-server-fetch__fetch_markdown``,
  ``mcp__google-search__search``),

unless, for the last three, a word names something on this machine (``mcp__filesystem__search_files``,
``codebase_search``, ``local_search``): those search files, not the web.
"""

from __future__ import annotations

import re

#: services whose tools only read the web: search and answer engines, scraping and crawling APIs, hosted browsers,
#: public forums/encyclopedias whose pages anyone can write, and hosted documentation readers (Context7, DeepWiki)
WEB_SERVICES = frozenset(
    "duckduckgo ddg bing kagi brave perplexity phind searxng searx serpapi serper searchapi tavily exa linkup jina "
    "yahoo baidu yandex startpage qwant mojeek marginalia you.com firecrawl apify scrapingbee scrapfly scraperapi "
    "zenrows brightdata oxylabs diffbot crawl4ai hyperbrowser browserbase browserless wikipedia reddit hackernews "
    "youtube stackoverflow stackexchange context7 deepwiki".split())
#: engines that also name other products (Google Drive, Google Maps): web only next to ``search``
_ENGINES = frozenset({"google", "googlesearch"})
#: words that are the web itself
_WEB_WORDS = frozenset({"web", "www", "internet", "http", "https"})
_READ_VERBS = frozenset({"read", "fetch", "scrape", "crawl", "open", "visit", "browse", "extract", "download", "load",
                         "view", "navigate", "goto", "summarize", "summarise"})
_WEB_NOUNS = frozenset({"url", "urls", "uri", "link", "links", "webpage", "website", "html"})
#: an MCP server named for one of these fetches, scrapes, crawls or searches for its caller
_SERVER_JOBS = frozenset({"fetch", "fetcher", "scrape", "scraper", "crawl", "crawler", "search", "searcher"})
#: words that put a tool on this machine (its files, code, memory), never on the web
_LOCAL_WORDS = frozenset({"file", "files", "filesystem", "fs", "dir", "directory", "directories", "folder", "path",
                          "code", "codebase", "repo", "repository", "local", "memory", "memories", "notes", "project",
                          "workspace", "symbol", "symbols", "grep", "ripgrep", "git", "semantic", "vector", "index",
                          "database", "db", "sql", "sqlite", "postgres", "memdir"})
#: tools that show what an earlier web tool fetched (Windsurf reads a page it fetched chunk by chunk)
_WEB_FOLLOWERS = frozenset({"view_content_chunk"})


def name_words(name: str) -> list[str]:
    """The lower-case words of a tool name: camelCase and every non-alphanumeric split (``mcp__brave-search__
    brave_web_search`` → ``["mcp", "brave", "search", "brave", "web", "search"]``)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", name)
    return [w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]


def mcp_parts(name: str) -> tuple[str, str]:
    """``(server, tool)`` of an MCP tool name (``mcp__kagi__kagi_search`` → ``("kagi", "kagi_search")``), lower-cased;
    ``("", name)`` for another name."""
    parts = name.strip().lower().split("__")
    if len(parts) >= 3 and parts[0] == "mcp":
        return parts[1], "__".join(parts[2:])
    return "", name.strip().lower()


def names_web_tool(name: str) -> bool:
    """True when tool ``name``'s words say it returns web content (module docstring): ``mcp__duckduckgo__search``,
    ``mcp__perplexity__perplexity_ask``, ``mcp__jina__read_url``, ``read_url_content``, ``search_web``,
    ``mcp__mcp-server-fetch__fetch_markdown``; not ``mcp__filesystem__search_files``, ``Grep``, ``codebase_search``,
    ``mcp__github__get_issue``."""
    server, tool = mcp_parts(name)
    if tool in _WEB_FOLLOWERS:
        return True
    words = name_words(name)
    joined = {w for w in re.split(r"[^a-z0-9.]+", name.lower()) if w}  # `you.com` keeps its dot
    if any(w in WEB_SERVICES for w in (*words, *joined)):
        return True
    if any(w in _LOCAL_WORDS for w in words):
        return False
    if "search" in words and any(w in _ENGINES for w in words):
        return True
    if any(w in _WEB_WORDS for w in words):
        return True
    if any(w in _READ_VERBS for w in words) and any(w in _WEB_NOUNS for w in words):
        return True
    return any(w in _SERVER_JOBS for w in name_words(server))
