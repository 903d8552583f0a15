"""Every `memdir store` command says how to install the PostgreSQL driver when it is missing (as `serve --store`
does), never an internal error."""

import subprocess
import sys

import pytest

RUN = "import sys; sys.modules['psycopg'] = None; from memdir.__main__ import main; main(sys.argv[1:])"


@pytest.mark.parametrize("args", [
    ["store", "init", "--admin", "postgresql://postgres@localhost/postgres"],
    ["store", "token", "alice", "--project", "p", "--store", "postgresql://o@localhost/memdir"],
    ["store", "tokens", "--store", "postgresql://o@localhost/memdir"],
])
def test_a_store_command_without_psycopg_says_how_to_install_it(args, tmp_path):
    res = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, timeout=60,
                         env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 1 and "[postgres]'" in res.stderr and "pip install" in res.stderr, res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
