"""An export re-saved in another encoding, then imported (case C28's siblings): UTF-32 (its mark begins as UTF-16's
does, so it was read as UTF-16 and every line was bad), UTF-16 without a mark (every line bad), and a legacy
encoding such as GBK (each line stored with its Chinese letters replaced by U+FFFD, silently). The first two are
read; a line that is not UTF-8 is refused with a warning saying so and nothing garbled is stored."""

from __future__ import annotations

import subprocess
import os
import sys

import pytest

import memdir


def _export(tmp_path):
    src = tmp_path / "a"
    (src / ".git").mkdir(parents=True)
    with memdir.open(src, home=tmp_path / "g") as m:
        m.remember("部署脚本用 pnpm 而不是 npm，因为 lockfile 不兼容", category="decisions")
        m.remember("la réunion de déploiement a lieu au café")
        m.capture({"role": "user", "text": "how do we roll back a failed deploy quickly? 回滚", "session": "s1"})
        dump = tmp_path / "dump.jsonl"
        m.export(dump)
    return dump.read_text(encoding="utf-8")


@pytest.mark.parametrize("codec,mark", [("utf-32-le", b"\xff\xfe\x00\x00"), ("utf-32-be", b"\x00\x00\xfe\xff"),
                                        ("utf-16-le", b""), ("utf-16-be", b""), ("utf-16-le", b"\xff\xfe")])
def test_an_export_in_a_wide_encoding_is_restored_whole(tmp_path, codec, mark):
    text = _export(tmp_path)
    f = tmp_path / "resaved.jsonl"
    f.write_bytes(mark + text.replace("\n", "\r\n").encode(codec))
    dst = tmp_path / "b"
    (dst / ".git").mkdir(parents=True)
    with memdir.open(dst, home=tmp_path / "g2") as m:
        got = m.import_jsonl(f)
        assert got["notes"] == 2 and got["stored"] == 1 and got.get("bad_lines", 0) == 0, got
        assert any("回滚" in h.text for h in m.recall("回滚"))
        assert {n.summary for n in m.inspect().notes} >= {"la réunion de déploiement a lieu au café"}


def test_a_copy_in_a_legacy_encoding_is_refused_not_stored_garbled(tmp_path):
    text = _export(tmp_path)
    f = tmp_path / "gbk.jsonl"
    f.write_bytes(text.encode("gbk", "replace"))
    dst = tmp_path / "b"
    (dst / ".git").mkdir(parents=True)
    env = {**os.environ, "MEMDIR_HOME": str(tmp_path / "g2"), "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "memdir", "import", str(f)], cwd=dst, env=env, text=True,
                       capture_output=True, timeout=120)
    assert "not UTF-8" in r.stderr and "Traceback" not in r.stderr, r.stderr
    with memdir.open(dst, home=tmp_path / "g2") as m:
        assert not [h for h in m.recent(limit=50) if "\ufffd" in h.text]
