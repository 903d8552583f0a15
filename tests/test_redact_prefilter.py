"""The redaction pre-filter (issue 12): one Aho-Corasick pass picks the detectors a text can trigger. It must pick
exactly what the plain check did (one ``literal in text`` per literal), on any text: a detector it failed to pick
would let that secret through. The long-run trigger of the hex/base64 scanner must agree with its regex."""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from memdir.capture import redact as R
from conftest import shared_path

_EXACT = [lit for lit, _ in R._EXACT_INDEX] + list(R._SCAN_EXACT)
_LOWER = [lit for lit, _ in R._LOWER_INDEX] + list(R._SCAN_LOWER)
_LONG_RUN = re.compile(r"[A-Za-z0-9+/]{32}")
_KEY_RUN = re.compile(r"[A-Za-z0-9+/]{22}")  # the trigger of the prefixed-key and labelled-value scanners (C26, C44)


def _check(text: str) -> None:
    lowered = R._lower_same_length(text)
    assert R._literals_in(text, lowered) == ({x for x in _EXACT if x in text}, {x for x in _LOWER if x in lowered}), text
    assert R._has_long_run(text) == (_LONG_RUN.search(text) is not None), text
    assert R._has_key_run(text) == (_KEY_RUN.search(text) is not None), text


def _random_text(rng: random.Random) -> str:
    """Texts dense in literals and their fragments (overlapping, nested, cut short), next to other characters."""
    pieces = _EXACT + _LOWER + [lit[: rng.randint(1, len(lit))] for lit in rng.sample(_EXACT + _LOWER, 10)]
    pieces += ["a" * 31, "a" * 21, "Zz09+/" * 6, "m0-", "Zx9Qw8Er7Ty6Ui5Op4As3D", "key=", " ", "\n", "é", "İ", "部署", "\ud800", "\x00", "=", ":", "_", "-", ".", "/"]
    out = []
    for _ in range(rng.randint(0, 12)):
        p = rng.choice(pieces)
        out.append(p.upper() if rng.random() < 0.2 else p)
    return "".join(out)


def test_prefilter_picks_what_the_plain_check_picked_on_random_texts():
    rng = random.Random(12)
    for _ in range(5_000):
        _check(_random_text(rng))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_prefilter_on_any_text(text):
    _check(text)


def test_prefilter_on_transcripts():
    texts: list[str] = []
    for f in sorted(shared_path("data", "transcripts").rglob("*.jsonl")):
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            texts.append(line)
    assert texts
    for t in texts[:: max(1, len(texts) // 2000)]:
        _check(t)


def test_every_case_still_found():
    """The findings the redaction tests rely on (C18 and others) come through the new pre-filter."""
    for text, kind in (("token = 8f3a9c1d2b7e4f60a1b2", "token"), ("see postgres://app:hunter2x@db/prod", "db_uri"),
                       ("key sk-sp-4f8a1b2c3d4e5f6a7b8c9d0e.f1a2b3c4d5e6", "api_key"),
                       ("密码：Tr0ub4dor&3", "password"), ("<private>x</private>", "private"),
                       ("0123456789abcdef0123456789abcdef-us12", "mailchimp_key"),
                       ("use m0-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm", "api_key"),  # C26: 22-run trigger
                       ("KEY=9qsTw46SyuDRUFexWZh4lMx0EdcX8U", "base64_secret")):  # C44

        kinds = [k for k, _, _ in R.find_secrets(text)]
        assert kind in kinds, (text, kinds)
