"""What a question asks for, as far as the block's choice of entries cares: why something failed, how it was fixed,
which commit did it, how many tests passed, which file or URL.

:func:`question_kind` reads the question alone (English and Chinese wording, no model); the block then weighs the
entries that answer such a question (:func:`memdir.inject.entries.block_order`): the failing output for a "why did it
fail", the change for a "how did we fix". Kept only where bench/block_qa.py says it helps on both halves
(docs/benchmarks.md).
"""

from __future__ import annotations

import re

#: "how did we fix / get around / make it pass", 怎么修好的 / 如何解决 / 改了什么
_FIX = re.compile(
    r"\b(?:fix(?:ed|es|ing)?|resolv(?:e|ed|ing)|solv(?:e|ed|ing)|work(?:ed)? ?around|patch(?:ed)?|repair(?:ed)?"
    r"|get (?:it|them|this|that) (?:to )?work(?:ing)?|make (?:it|them) pass|unblock(?:ed)?)\b"
    r"|修复|修好|修正|修了|解决|搞定|改好|怎么改|如何改|改了什么|改成了?什么|绕过|规避|让.{0,12}通过", re.I)
#: "why did it fail / what error / which rule blocked it", 为什么失败 / 报了什么错 / 被哪条规则拦下
_FAIL = re.compile(
    r"\b(?:fail(?:s|ed|ing|ure)?|error(?:s|ed)?|exception|crash(?:ed|es)?|broke(?:n)?|reject(?:ed|s)?|denied|refus(?:e|ed)"
    r"|block(?:ed|s)?|complain(?:ed|s)?|went wrong|traceback|panic(?:ked)?|time[ds]? ?out|didn'?t work|wouldn'?t"
    r"|couldn'?t|can'?t|cannot|could not|can not|unable|not able|wasn'?t able|assertion(?: error)?|not found"
    r"|why\b.{0,60}\bnever|(?:which|what) (?:\w+ )?warnings?"
    # a "why" with a negated or broken result: why did it not compile / why didn't the edit apply / why was it skipped
    # ("why not use X", "why don't we", 为什么不用 / 不让 ask about a choice, not a failure)
    r"|why\b[^?.]{0,80}(?:\b(?:did|does|do|was|were|is|are|has|have|had)(?: \w+){0,6} not|(?:didn|doesn|wasn"
    r"|weren|isn|aren|hasn|hadn|wouldn|couldn|won)'?t|\b(?:skipped|ignored|dropped|stuck|hung|killed|aborted))"
    r"|tim(?:ed|ing|es)? ?out|blow(?:s|ing)? up|blew up|exit(?:ed|s|ing)? with (?:code|status) [1-9]|non-?zero exit)\b"
    r"|失败|报错|出错|错误|异常|拦|拒绝|不通过|没通过|没过|崩|挂了|卡住|超时|无法|不能|不行|报了?什么|警告|没能|未能"
    # 报的是什么错 / 为什么没删干净 / 为何不生效 / 没法读 / 被限流
    r"|什么错|(?:为什么|为何|怎么)(?:会|又|还|一直|总是)?(?:没(?!选|采用|挑)|不(?![用选采要让把改换如去先也必需]))|没法|没办法|限流"
    # a verb with a negated result: 连不上 / 打不开 / 找不到 (not 不了解, 不到一秒, 上不上线, 离不开)
    r"|(?:连|打|找|装|跑|进|出|搜|查|拉|推|登|访问|加载|启动|编译|运行|打开|连接|识别|导入|安装|下载)不(?:上|开|到|动|进|出|了|通|过|起来|下来)"
    r"(?![解个到一二三四五六七八九十百千万\d])", re.I)


#: "why didn't we pick X / why did you not go with Y", 为什么没选: a person's choice asked about, not a failure
_CHOICE_WHY = re.compile(
    r"\bwhy\b[^?.]{0,60}\b(?:we|you|i|they)\b[^?.]{0,20}?(?:\bnot|n'?t)\b(?: \w+)? (?:pick|choose|chose|go with|use"
    r"|select|adopt|prefer|opt|switch|want)\b"
    r"|\bwhy\b[^?.]{0,60}n'?t (?:we|you|i|they) (?:\w+ )?(?:pick|choose|go with|use|select|adopt|prefer|opt|switch|want)\b",
    re.I)
#: a word that names a failure outright (a choice question holding one is still about a failure)
_FAILED_WORD = re.compile(r"\b(?:fail\w*|error\w*|crash\w*|broke\w*|exception|traceback|panic\w*)\b|失败|报错|出错|错误|异常|崩",
                          re.I)
#: "which commit added X / what was its short hash", 那次提交的哈希 / 哪次提交
_COMMIT = re.compile(
    r"\b(?:which|what)\s+(?:(?:git|short|first|last|final|earlier|later|previous)\s+)?commits?\b(?!\s+to\b)"
    r"|\bcommit(?:'s)?\s+(?:short\s+)?(?:hash|id|sha)\b|\bshort hash\b"
    r"|提交.{0,8}(?:哈希|hash|编号)|哈希|哪(?:次|个|一次)提交", re.I)
#: a commit named in a tool's output: Aider's ``Commit 4bb043f …``, git's ``[main 418d9c9] …``, ``commit <sha>`` of git
#: log, a ``--oneline`` line
_HASH = re.compile(r"\bCommit [0-9a-f]{7,40}\b|\[[^\]\n]{1,60} [0-9a-f]{7,40}\]|^commit [0-9a-f]{7,40}\b"
                   r"|(?:^|→ )(?=[0-9]*[a-f])[0-9a-f]{7,12} \S", re.M)  # a --oneline line: a hash has a letter

#: "how many tests passed / how long did the run take", 测试一共多少个 / 花了多长时间
_TESTS = re.compile(
    r"\bhow (?:many|long)\b.{0,60}\btests?\b|\btests?\b.{0,60}\bhow (?:many|long)\b"
    r"|测试.{0,30}(?:多少|几个|多长时间|多久)|(?:多少|几)个?测试", re.I)
#: a test runner's verdict line: pytest ``3 passed in 0.41s``, ``72 tests, 0 failures``, unittest ``Ran 5 tests``,
#: vitest ``Tests  16 passed``
_VERDICT = re.compile(r"\b\d+ (?:passed|failed)\b|\b\d+ tests?, \d+ failures?\b|\bRan \d+ tests?\b"
                      r"|\bTests?:? +\d+ passed|\bOK \(\d+ tests?\)")

#: "which command / flag / argument did we run", 哪条命令 / 什么参数 / 哪个子命令 (checked before a fix or a failure: "which
#: gh flag printed the logs of the steps that failed" asks for a command line)
_COMMAND_ASK = re.compile(
    r"\b(?:which|what)\s+(?:(?!feature\b)[\w.-]+\s+){0,3}(?:command|command-line flag|cli flag|flag|subcommand"
    r"|invocation|argument(?!s? (?:for|against)\b)|filter)s?\b|\bwith which command\b"
    r"|(?:哪条|哪个|(?<!为)什么|哪种)(?:\w{0,4})?(?:命令|参数|子命令|选项写法|参数写法)", re.I)
#: "which file / where was it saved / what URL", 哪个文件 / 放在哪 (checked before a failure: the question asks a path)
_FILE_ASK = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,2}(?:file|path|directory|folder|url|address|page|document|link|endpoint|website)s?\b"
    r"|\bwhere\b.{0,60}\b(?:saved|written|stored|put|kept|located|live[sd]?|end(?:ed)? up)\b"
    r"|哪个文件|哪份|什么文件|哪个目录|放在哪|存在哪|写进了?哪|存到哪|哪个路径|什么路径|哪个地址|什么地址", re.I)
#: a bare 路径 / 地址 / 网址: a file question only when it is no failure (为什么报错说路径不存在 is one)
_FILE_WORD = re.compile(r"路径|地址|网址")
#: a file question that asks for a web address, not a file: its window wants a URL (``https://…``), not any path
_URL_ASK = re.compile(r"\b(?:url|urls|web ?address|web ?page|website|link|endpoint)s?\b|网址|链接|网页|网站|端点|接口地址|请求地址|访问地址", re.I)


def asks_url(question: str) -> bool:
    """True when ``question`` asks for a web address (URL, link, website, endpoint; 网址 / 链接 / 网站)."""
    return isinstance(question, str) and bool(_URL_ASK.search(question))


def question_kind(question: str) -> str | None:
    """``"commit"`` for a question asking which commit (its hash), ``"tests"`` for one asking how many tests passed
    or how long a run took, ``"command"`` for one asking which command, flag or argument was run (also when it names
    a failure or a fix: "which gh flag printed the failed steps' logs"), ``"fix"`` for one about how something was
    fixed or got round (a question naming a failure
    too, "how did we fix the failing build", is ``"fix"``), ``"file"`` for one asking
    which file, where something went or what URL (its which/where forms checked before ``"fail"``: "which directory
    went onto PATH after the shell could not find it" asks for a path), ``"fail"`` for one about why something
    failed, ``"value"`` for one asking how many, which version or which port (its answer is a number with what it
    counts, or a version); else ``None``. The first that matches, in the order commit, tests, command, fix, file
    (asked), fail, file, value."""
    if not isinstance(question, str) or not question.strip():
        return None
    if _COMMIT.search(question):
        return "commit"
    if _TESTS.search(question):
        return "tests"
    if _COMMAND_ASK.search(question):
        return "command"
    if _FIX.search(question):
        return "fix"
    if _FILE_ASK.search(question):  # asks which file / where, even when it names a failure on the way
        return "file"
    if _FAIL.search(question) and not (_CHOICE_WHY.search(question) and not _FAILED_WORD.search(question)):
        return "fail"
    if _FILE_WORD.search(question):
        return "file"
    if _VALUE_ASK.search(question):
        return "value"
    return None


def answers(kind: str | None, text: str) -> bool:
    """True when a tool entry's stored ``text`` is what a ``kind`` question looks for: a failed call (its summary
    reads ``→ error``) for ``"fail"``, a shell call (``Bash: …``, ``exec_command: …``, Aider's ``/run``) for
    ``"command"``, a file change (``Edit: <file> …``, ``apply_patch: …``) for ``"fix"``, an output
    naming a commit for ``"commit"``, a test runner's verdict line (``4 passed in 0.41s``) for ``"tests"``."""
    if kind == "fail":
        head = text[:600]
        return " → error" in head or "\n→ error" in text[-400:]
    if kind == "commit":
        return bool(_HASH.search(text[:3000]))
    if kind == "tests":
        return bool(_VERDICT.search(text[:3000]) or _VERDICT.search(text[-1500:]))
    if kind == "command":
        from memdir.capture.gates import SHELL_TOOLS

        name, _, arg = text.partition(":")
        name = name.strip().casefold()
        return name in SHELL_TOOLS or (name == "aider" and arg.lstrip().startswith("/"))
    if kind == "fix":
        from memdir.capture.tools import EDIT_TOOLS

        name = text.split(":", 1)[0].strip().casefold()
        return name in EDIT_TOOLS and "\n" in text
    return False


#: "how many / what version / which port", 多少 / 几个 / 哪个版本: the answer is a number or a version
_VALUE_ASK = re.compile(r"\bhow (?:many|much|long|big|large)\b|\b(?:which|what)\s+(?:\w+\s+){0,2}(?:version|port|number|count"
                        r"|total|size|value|id|range)s?\b|多少|几个|几条|几次|几项|哪个版本|(?<!为)什么版本|版本号|(?:哪个|(?<!为)什么)端口|端口号|总共|一共", re.I)
#: a number with what it counts (``146 records``, ``24 unmapped names``, ``a 10-line default``, ``54%``, ``146条``) or a
#: version (``v4.1.5``, ``0.28.1``); not a date, a time, a line number or a bare integer (block-QA, tuning half: 115 ->
#: 116 of 158, validation 98 -> 99; any number at all: tuning 115, validation +2 -1)
_NUMBER = re.compile(r"(?<![\w.#:/-])(?:v?\d+(?:\.\d+){1,3}|\d+(?:,\d{3})*(?: ?%|[ -][a-z\u4e00-\u9fff]{2,}|[\u4e00-\u9fff]))(?![\w:/-])", re.I)


def answer_line(kind: str | None) -> re.Pattern[str] | None:
    """The shape of the line a ``kind`` question's answer sits on, for the block's window to reach
    (:func:`memdir.inject.window.focus`): a test runner's verdict (``16 passed``) for ``"tests"``, a commit line
    (``[main 418d9c9] …``, ``Commit 4bb043f``) for ``"commit"``, a line naming the error (``AssertionError: …``,
    ``error TS2322:``, ``fatal:``; :data:`memdir.capture.evidence.CAUSE_LINE`) for ``"fail"``, a number with what it
    counts or a version (``146 records``, ``10-line``, ``v4.1.5``) for ``"value"``; ``None`` for other kinds."""
    if kind == "fail":
        from memdir.capture.evidence import CAUSE_LINE

        return CAUSE_LINE
    return {"tests": _VERDICT, "commit": _HASH, "value": _NUMBER}.get(kind or "")


#: "what did we decide / which did we go with", 决定 / 选了 / 定的
_DECIDE_ASK = re.compile(r"\b(?:decid(?:e|ed|ing)|decision|chose|choose|chosen|go(?:ne)? with|settle[d]? on|agree[d]?)\b"
                         r"|决定|选了|选择了?|定的|怎么定|采用了?|用哪个", re.I)


def asks_decision(question: str) -> bool:
    """True when ``question`` asks what was decided or chosen."""
    return isinstance(question, str) and bool(_DECIDE_ASK.search(question))
