"""Benchmark memdir.capture.redact: import time, time per 10 KB of text, scaling on adversarial input.

Usage: python bench/redact_bench.py   (prints a table; nothing is asserted)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(SRC))


def import_ms(runs: int = 7) -> tuple[float, float]:
    """Median wall time (ms) in a fresh interpreter of (a) loading src/memdir/capture/redact.py alone and
    (b) `import memdir.capture.redact`, which also runs the package __init__ (the facade and its imports)."""
    def run(code: str) -> float:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={"PYTHONPATH": str(SRC)}, check=True)
        return float(out.stdout)

    alone = ("import sys, time, importlib.util as u; t=time.perf_counter(); "
             f"s=u.spec_from_file_location('redact', {str(SRC / 'memdir' / 'capture' / 'redact.py')!r}); "
             "m=u.module_from_spec(s); sys.modules['redact']=m; s.loader.exec_module(m); print((time.perf_counter()-t)*1000)")
    package = "import time; t=time.perf_counter(); import memdir.capture.redact; print((time.perf_counter()-t)*1000)"
    return (statistics.median(run(alone) for _ in range(runs)),
            statistics.median(run(package) for _ in range(runs)))


def per_10kb(text: str, reps: int = 200) -> float:
    """Median ms for redact() of a 10,000-char slice of `text`."""
    from memdir.capture.redact import redact

    chunk = (text * (10_000 // max(1, len(text)) + 1))[:10_000]
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        redact(chunk)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    prose = (HERE.parent / "tests" / "corpus" / "prose.txt").read_text(encoding="utf-8")
    english = "The deploy failed because the migration ran before the lock was released, so we retried it twice. " * 5
    chinese = "部署失败是因为迁移在锁释放之前就执行了，我们决定以 Markdown 文件为准，SQLite 只是派生的索引。" * 5
    code = "def login(username: str, password: str) -> Session:\n    token = request.headers.get('Authorization')\n" * 5
    secrets = "password=hunter2 and postgres://u:p4ss@h/db and ghp_" + "a1B2" * 9 + " and 密码：abc123\n"
    alone, package = import_ms()
    print(f"import redact.py alone: {alone:.1f} ms; `import memdir.capture.redact` with the package: {package:.1f} ms "
          "(medians of 7, fresh interpreter)")
    print("| text (10,000 chars) | ms per redact() (median of 200) |")
    print("|---|---|")
    for name, text in [("English prose", english), ("Chinese prose", chinese), ("code", code),
                       ("prose corpus (mixed, 273 lines)", prose), ("dense secrets", secrets)]:
        print(f"| {name} | {per_10kb(text):.3f} |")
    from memdir.capture.redact import redact

    print("| adversarial input | 30k chars ms | 300k chars ms | ratio |")
    print("|---|---|---|---|")
    for name, unit in [("'password: '", "password: "), ("'eyJa.'", "eyJa."), ("'<private>'", "<private>"),
                       ("'a://b:'", "a://b:"), ("'密码：'", "密码："), ("'AKIA'", "AKIA"),
                       ("'password: sunshine' + blanks", None), ("'password is abcde and '", "password is abcde and "),
                       ("'sshpass -p '", "sshpass -p "), ("'密码 '", "密码 "), ("'api key: ' + a quote", "api key: '"),
                       ("'redis-cli -a '", "redis-cli -a "), ("'token \\''", "token '"),
                       ("'password - '", "password - "), ("'Cookie: sid=x; '", "Cookie: sid=x; "),
                       ("'config set a.token '", "config set a.token "), ("'m0-Ab' + U+200B", "m0-Ab\u200b"),
                       ("'%2E'", "%2E"), ("'key=Ab-'", "key=Ab-"), ("'sk-proj-…+'", "sk-proj-" + "Ab1" * 8 + "+"),
                       # moved here from timed tests (speed is a benchmark's to measure, not a test's)
                       ("'x=' + hex blob + ';'", "x=" + "0123456789abcdef" * 2 + ";"),
                       ("'cookie login: a=b '", "cookie login: a=b "), ("'cookies = {'sid': '", "cookies = {'sid': "),
                       ("'set_cookie('sid', 'x') '", "set_cookie('sid', 'x') "), ("'curl -b a=b '", "curl -b a=b "),
                       ("'htpasswd ' + '-bn ' * 50", "htpasswd " + "-bn " * 50), ("'mongosh -p '", "mongosh -p "),
                       ("'sqlcmd -P '", "sqlcmd -P "),
                       # Oracle logins: a tool's options before its login, a login glued to the next tool's name
                       ("'sqlplus -s '", "sqlplus -s "), ("'sqlplus a/b'", "sqlplus a/b"), ("'rman target '", "rman target "),
                       ("'conn a/'", "conn a/"), ("'jdbc:oracle:thin:a/'", "jdbc:oracle:thin:a/"), ("'userid=a/'", "userid=a/"),
                       # a password on stdin: here-strings with no command reading one, prompts with no answer
                       ("'<<<a:'", "<<<a:"), ("'<<<a sudo '", "<<<a sudo "), ("'sudo -p x '", "sudo -p x "),
                       ("'expect \"password\" '", 'expect "password" '), ("'printf \"%s\" '", 'printf "%s" '),
                       # heredocs: openings never closed, a name before each, a lone triple quote, shift operators
                       ("'<<EOF\\n'", "<<EOF\n"), ("'password = <<EOF\\n'", "password = <<EOF\n"),
                       ("'\"\"\"\\n'", '"""\n'), ("'token = \"\"\"\\n'", 'token = """\n'), ("'<<'", "<<"),
                       ("'chpasswd <<A\\na:b\\n'", "chpasswd <<A\na:b\n"),
                       # a key glued to a CJK label or before one: labels alone, values before copulas, arrows
                       ("'密码a1b2c3'", "密码a1b2c3"), ("'Zx9Qw8Lm22xR8sQ1w2e3r4是令牌'", "Zx9Qw8Lm22xR8sQ1w2e3r4是令牌"),
                       ("'a1b2c3d4 is my password '", "a1b2c3d4 is my password "), ("'token ⇒ '", "token ⇒ "),
                       # provider prefixes: a prefix glued to itself, a short tail after each
                       ("'sl.'", "sl."), ("'sl.aB1'", "sl.aB1"), ("'oy2a1'", "oy2a1"),
                       # a token as a URL's user; a key's name in another language; name/value pairs and tables
                       ("'https://Ab1' (no @)", "https://Ab1Cd2Ef3Gh4Ij5Kl6Mn7 "), ("'APIキー: '", "APIキー: "),
                       ("'clave de api '", "clave de api "), ("'name: api_token '", "name: api_token "),
                       ("'name: api_token value: '", "name: api_token value: "),
                       ("'| password '", "| password "), ("'|password|x|\\n'", "|password|x|\n"),
                       # base64 decoded and searched: one long run, many short values of text, values of values
                       ("'QUFB' (one run)", "QUFB"), ("base64 of text + ' '", "aGVsbG8gd29ybGQgdGhpcyBpcyB0ZXh0IA== "),
                       ("base64 of 'password: x' + ' '", "cGFzc3dvcmQ6IHg= "),
                       ("\"auth=('u', \" ", "auth=('u', "), ("'{ pass: ' + a quote", "{ pass: '"),
                       ("'net use a /user:b '", "net use a /user:b "), ("'Private-Lines: 1' + lines", "Private-Lines: 1\nAAAA\n"),
                       ("\"'Basic ' + '\" ", "'Basic ' + '"), ("76-column base64 lines", "QUFB" * 19 + "\n"),
                       ("'| Key | ' table rows", "| API key | x |\n"), ("'NAME=' + base64", "A=QUFBQUFBQUFBQUFBQUFBQUFBQUFB "),
                       # a credential option named with qualifiers: runs of dashed words, an option with no value
                       ("'--a-'", "--a-"), ("'--a-b-c-d-e-f-'", "--a-b-c-d-e-f-"), ("'-db-token='", "-db-token="),
                       # a login's token: options before it, Redis's AUTH and requirepass with no line end
                       ("'cargo login -a b '", "cargo login -a b "), ("'auth a '", "auth a "),
                       ("'requirepass '", "requirepass "), ("'echo a | cargo login '", "echo a | cargo login "),
                       # a query's key, a quoted header in a server's config, a client's login call
                       ("'?key=Ab1'", "?key=Ab1"), ("\"authorization '\"", "authorization '"),
                       ("\".login('a', '\"", ".login('a', '"), ("'mosquitto_pub -P '", "mosquitto_pub -P "),
                       # positional secrets: mc alias set's four arguments, rclone's name/value pairs, poetry's user
                       ("'mc alias set a b c '", "mc alias set a b c "), ("'rclone config create a b '",
                        "rclone config create a b "), ("'poetry config http-basic.a b '", "poetry config http-basic.a b "),
                       # JSON held in a string: escaped quotes, runs of backslashes, \\uXXXX and \\n escapes
                       ("'{\\\\\"password\\\\\": \\\\\"'", '{\\"password\\": \\"'), ("'\\\\' * n", "\\"),
                       ("'\\\\' * 20 + 'a'", "\\" * 20 + "a"), ("'\\\\u5bc6\\\\u7801 '", "\\u5bc6\\u7801 "),
                       ("'m0-Ab1\\\\n'", "m0-Ab1\\n"), ("'\\\\\"x\\\\\" '", '\\"x\\" '),
                       # HTTPie's -a: the command's name with no option after it, options with no value
                       ("'http '", "http "), ("'http -a '", "http -a "), ("'xh --auth a:'", "xh --auth a:"),
                       # JSON or a config line URL-encoded whole: escaped quotes and spaces around words
                       ("'%22password%22%3A%20%22'", "%22password%22%3A%20%22"), ("'%20a'", "%20a"), ("'%7Ba%22'", "%7Ba%22")]:
        ms = []
        for n in (30_000, 300_000):
            # a value followed by one long run of blanks: each split of the run must not be tried again (quadratic)
            s = "password: sunshine" + " " * n + "x" if unit is None else (unit * (n // len(unit) + 1))[:n]
            t = time.perf_counter()
            redact(s)
            ms.append((time.perf_counter() - t) * 1000)
        print(f"| {name} | {ms[0]:.1f} | {ms[1]:.1f} | {ms[1] / max(ms[0], 1e-9):.1f} |")


if __name__ == "__main__":
    main()
