"""remote.url that is malformed, or a server that answers something other than HTTP: a push or a team recall reports
the failure (rows stay queued) and never raises into the write or recall that triggered it (hreview3)."""
import socket
import threading

import pytest

from memdir.engine import remote
from memdir.config import Config

ROW = {"ref": "k", "content_sha256": "x", "text": "t", "ts": "2026-11-30T00:00:00Z", "ts_epoch": 0}


def _server(answer: bytes):
    """A TCP server answering every connection with ``answer`` and closing it; returns (url, stop)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def run():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(answer)
                except OSError:
                    pass

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def close():
        stop.set()
        t.join(2)
        srv.close()

    return f"http://127.0.0.1:{srv.getsockname()[1]}/v1", close


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://ex ample/v1"])
def test_push_to_a_malformed_url_reports_and_keeps_the_rows(tmp_path, url):
    remote.enqueue(tmp_path, [ROW])
    res = remote.push(tmp_path, url, "p", "tok", budget_s=2)
    assert res["sent"] == 0 and res["left"] == 1 and res["error"]


@pytest.mark.parametrize("answer", [b"SSH-2.0-OpenSSH_9.6\r\n",  # not HTTP at all: BadStatusLine
                                    b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"st",  # cut short: IncompleteRead
                                    ])
def test_push_to_a_server_answering_garbage_reports_and_keeps_the_rows(tmp_path, answer):
    url, close = _server(answer)
    try:
        remote.enqueue(tmp_path, [ROW])
        res = remote.push(tmp_path, url, "p", "tok", budget_s=5)
        assert res["sent"] == 0 and res["left"] == 1 and res["error"]
    finally:
        close()


@pytest.mark.parametrize("url", ["http://[::1/v1", "http://ex ample/v1", None])
def test_team_recall_failure_is_an_error_not_a_thread_traceback(monkeypatch, url):
    died = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args.exc_value))
    close = None
    if url is None:
        url, close = _server(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"hits")
    try:
        r = remote.Recall(url, "p", "tok", "deploy", 5, budget_s=5)
        assert r.result() is None and r.error
        assert died == []
    finally:
        if close:
            close()


@pytest.mark.parametrize("url", ["http://", "https://", "http://[::1", "http://ex ample/v1", "http://h:99999/v1"])
def test_config_refuses_a_remote_url_without_a_usable_host(url):
    cfg = Config(env={"MEMDIR_REMOTE_URL": url})
    assert cfg.get("remote.url") == "" and any("remote.url" in w for w in cfg.warnings)


def test_config_keeps_a_good_remote_url():
    for url in ("http://127.0.0.1:8765/v1", "https://team.example.com/v1", "http://[::1]:8765/v1"):
        assert Config(env={"MEMDIR_REMOTE_URL": url}).get("remote.url") == url


def _http_ok():
    """A tiny HTTP server answering every POST 200 ``{}`` and counting the requests; returns (url, hits, stop)."""
    import http.server

    hits = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    def stop():
        srv.shutdown()
        srv.server_close()

    return f"http://127.0.0.1:{srv.server_address[1]}/v1", hits, stop


def test_memdir_push_sends_rows_still_backed_off(tmp_path, monkeypatch):
    """`memdir push` is the user's "send now": after a failed send (server down) the rows wait 1, 2, 4 … s for the
    automatic pushes, but an explicit push sends them at once. Before, it printed '0 sent, 1 queued' with no error
    and exit 0 until the backoff ran out (up to 300 s)."""
    import memdir

    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    dead_url = f"http://127.0.0.1:{dead.getsockname()[1]}/v1"
    dead.close()  # nothing listens there: connection refused
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    ev = {"key": "k1", "role": "user", "text": "we deploy with make deploy on fridays", "session": "s"}
    with memdir.open(project, home=tmp_path / "g", config={"remote.url": dead_url}) as m:
        assert m.import_events([ev])["stored"] == 1
        res = m.push()
        assert res["left"] == 1 and res["error"]  # refused: backed off
    url, hits, stop = _http_ok()
    try:
        with memdir.open(project, home=tmp_path / "g", config={"remote.url": url}) as m:
            assert m.push() == {"sent": 1, "left": 0, "failed": 0, "error": None}
        assert hits == ["/v1/p/events"]
    finally:
        stop()


def test_a_damaged_legacy_queue_file_is_set_aside_not_fatal(tmp_path, monkeypatch):
    """A pre-m012 queue file that is not a database (a disk fault, a half-copied home): before, every write that
    pushed (after its commit), `memdir push` and `pending` raised 'internal error: DatabaseError' for good. Now the
    file is moved aside (kept for a human: `remote-queue.sqlite3.unreadable-…`) with a warning, and the queue works."""
    import memdir

    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    url, hits, stop = _http_ok()
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    derived = project / ".memory" / ".memdir"
    try:
        with memdir.open(project, home=tmp_path / "g", config={"remote.url": url}) as m:
            m.remember("a note first, so the index exists")
            (derived / remote.QUEUE_FILE).write_bytes(b"garbage, not a database " * 100)
            ev = {"key": "k1", "role": "user", "text": "we deploy with make deploy on fridays", "session": "s"}
            assert m.import_events([ev])["stored"] == 1
            assert remote.pending(derived) == 0 and m.push()["error"] is None
        assert hits == ["/v1/p/events"]
        assert not (derived / remote.QUEUE_FILE).exists()
        assert [p.name for p in derived.glob(remote.QUEUE_FILE + ".unreadable-*")]
    finally:
        stop()


def test_a_locked_legacy_queue_file_waits_and_loses_nothing(tmp_path, monkeypatch):
    """An older memdir still writing the pre-m012 queue file holds its lock: before, 'database is locked' was taken
    for 'no queue table' and the file (with its rows) was deleted. Now it is left for the next push."""
    import sqlite3

    from memdir.store.sqlite.opening import open_index

    old = tmp_path / remote.QUEUE_FILE
    other = sqlite3.connect(str(old), isolation_level=None)
    other.execute("CREATE TABLE queue(ref TEXT PRIMARY KEY, row TEXT NOT NULL, tries INTEGER NOT NULL DEFAULT 0, "
                  "next_at REAL NOT NULL DEFAULT 0, seq INTEGER)")
    other.execute("INSERT INTO queue(ref, row, seq) VALUES ('k', '{\"ref\": \"k\"}', 1)")
    real = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda path, *a, **kw: real(
        path, *a, **{**kw, "timeout": 0.1} if str(path).endswith(remote.QUEUE_FILE) else kw))
    db, _ = open_index(tmp_path / remote.INDEX_FILE)
    try:
        other.execute("BEGIN EXCLUSIVE")  # the older process, mid-write
        assert remote.adopt_legacy(db, tmp_path) == 0
        assert old.exists()
        other.execute("COMMIT")
        other.close()
        assert remote.adopt_legacy(db, tmp_path) == 1 and not old.exists()
        assert [tuple(r) for r in db.execute("SELECT ref FROM remote_queue")] == [("k",)]
    finally:
        db.close()


def test_a_token_of_another_project_is_not_fixed_by_renaming_this_one():
    """HTTP 403 "the token grants: other": the fix names both readings (a clone under another directory name, or a
    token made for another project) instead of only "set remote.project = other", which sent this project's events
    into the other one."""
    from memdir.engine import delivery

    got = delivery.classify(403, "HTTP 403: token does not grant project 'webapp' (grants: other)", project="webapp")
    assert got["kind"] == "project"
    assert 'remote.project = "other"' in got["fix"] and "token granting 'webapp'" in got["fix"], got["fix"]


def test_a_name_lookup_that_hangs_costs_the_push_its_budget_not_the_resolvers_timeout(tmp_path, monkeypatch):
    """urllib's timeout bounds each socket operation but not the name lookup before them: with remote.url naming a
    host whose resolver does not answer (a VPN down, a dead nameserver: 5 s a try), the 250 ms push after every
    capture took the resolver's seconds, so each prompt and tool hook ran to its whole hook.budget_ms. Now the push
    stops at its budget whatever the lookup does; the rows stay queued (nothing lost) and no cause is named."""
    import socket
    import time

    real = socket.getaddrinfo

    def slow(host, *a, **k):
        if host == "slowdns.test":
            time.sleep(3)
            raise socket.gaierror(-3, "Temporary failure in name resolution")
        return real(host, *a, **k)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    remote.enqueue(tmp_path, [ROW])
    t = time.monotonic()
    res = remote.push(tmp_path, "http://slowdns.test:8765/v1", "p", "tok", budget_s=0.3)
    assert time.monotonic() - t < 1.0
    assert res["sent"] == 0 and res["left"] == 1 and "budget" in res["error"] and "kind" not in res, res
    # a long push (memdir push: 30 s) waits at most one request's timeout for the lookup, then names the cause
    t = time.monotonic()
    res = remote.push(tmp_path, "http://slowdns.test:8765/v1", "p", "tok", budget_s=30, due_only=False,
                      request_timeout_s=0.5)
    assert time.monotonic() - t < 1.5
    assert res["left"] == 1 and res["kind"] == "unreachable", res


def test_doctor_and_a_team_read_wait_their_own_timeout_for_a_name_lookup(tmp_path, monkeypatch):
    """The same for `memdir doctor`'s team-server check (3 s) and the read of a team hit (memdir get, memory_read):
    a resolver that does not answer cost them its whole timeout."""
    import socket
    import time

    from memdir.engine import teamview

    real = socket.getaddrinfo

    def slow(host, *a, **k):
        if host == "slowdns.test":
            time.sleep(3)
            raise socket.gaierror(-3, "Temporary failure in name resolution")
        return real(host, *a, **k)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    t = time.monotonic()
    check = teamview.check_server("http://slowdns.test:8765/v1", "p", "tok", timeout_s=0.3)
    assert time.monotonic() - t < 1.0 and check["ok"] == "fail", check
    cfg = Config(env={"MEMDIR_REMOTE_URL": "http://slowdns.test:8765/v1"})
    monkeypatch.setenv("MEMDIR_REMOTE_TOKEN", "tok")
    t = time.monotonic()
    assert teamview.read(cfg, tmp_path, "abc123", timeout_s=0.3) is None
    assert time.monotonic() - t < 1.0
