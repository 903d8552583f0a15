"""A/B (h14queue): time of one captured event (import_events of 1 event) with remote.url set to a port nobody listens on,
the queue in a separate file (old) vs in the index transaction (new). Run with PYTHONPATH pointing at either src."""
import os, socket, sys, tempfile, time
from pathlib import Path

s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
os.environ["MEMDIR_REMOTE_URL"] = f"http://127.0.0.1:{port}/v1"
os.environ["MEMDIR_REMOTE_TOKEN"] = "x"
import memdir
d = Path(tempfile.mkdtemp()); (d / "p" / ".git").mkdir(parents=True)
n = int(sys.argv[1])
with memdir.open(d / "p", home=d / "g") as m:
    m.import_events([{"key": "warm", "role": "user", "text": "warm up", "session": "s", "ts": 1_700_000_000}])
    t = []
    for i in range(n):
        t0 = time.perf_counter()
        m.import_events([{"key": f"k{i}", "role": "user", "text": f"captured prompt number {i} about the deploy", "session": "s",
                          "ts": 1_700_000_001 + i}])
        t.append(time.perf_counter() - t0)
t.sort()
print(f"{t[len(t)//2]*1000:.2f} {t[int(len(t)*.95)]*1000:.2f}")
