"""Deterministic synthetic memory stores for the speed benchmark (``bench/speed.py``).

Everything here is a pure function of ``(n, seed)``: the same arguments give the same items on every
machine and Python >= 3.11 (only :class:`random.Random` seeded with a ``str`` is used; Python keeps that seeding and the
``random()`` sequence stable across versions).

Texts mix Chinese and English the way coding-agent transcripts do: Chinese clauses built from common
two-character words with English identifiers dropped in (``部署脚本用 pnpm 而不是 npm``), and English
sentences of coding vocabulary. Words are drawn with Zipf weights (``1 / rank``), so a few terms are in
most documents and most terms are rare, as in real text. Lengths are log-uniform between 40 and 600
characters (median about 155). Nothing generated contains ``=`` or ``:``, so no text looks like a
``key = value`` secret to the redactor and every text is stored unchanged.

Public functions:

* :func:`events` -> iterator of ``{key, role, text, session, ts}`` dicts for ``Memdir.import_events``;
* :func:`notes` -> iterator of ``{text, category, summary, tags}`` dicts for ``Memdir.remember``;
* :func:`queries` -> list of query strings (Chinese, English and mixed);
* :data:`NOW` -> the fixed "current time" the stores are generated against (inject it as the clock).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from itertools import accumulate
from typing import Iterator

__all__ = ["NOW", "SPAN_DAYS", "MIN_CHARS", "MAX_CHARS", "events", "notes", "queries", "text_for"]

#: fixed clock of every synthetic store: events are spread over the SPAN_DAYS days before it
NOW = datetime(2025, 6, 1, tzinfo=timezone.utc)
SPAN_DAYS = 365
MIN_CHARS, MAX_CHARS = 40, 600
SESSION_LEN = 40  # events per synthetic session
CATEGORIES = ("rules", "preferences", "decisions", "pitfalls", "facts")

_EN = """
test tests build deploy config cache index query schema migration database sqlite postgres redis docker
kubernetes pod container image registry release version branch commit merge rebase conflict pull push
remote origin main feature fix bug error exception traceback stack trace log logger debug warning timeout
retry request response header body json yaml toml markdown file path directory folder module package
import export function method class object instance attribute property field value type string integer
float boolean list dict tuple set array map key hash token session cookie auth login user admin role
permission scope api endpoint route handler middleware server client socket port host proxy gateway
latency throughput memory cpu thread process async await promise callback event queue worker job task
scheduler cron script shell bash zsh terminal command flag option argument env variable secret vault
lint linter formatter prettier eslint ruff mypy pytest jest vitest coverage fixture mock stub snapshot
benchmark profile flame graph regression performance optimize refactor rename extract inline cleanup
pnpm npm yarn pip poetry uv cargo rustc go gofmt tsc webpack vite rollup esbuild babel node.js deno bun
python typescript javascript rust golang java kotlin swift ruby php lua sql graphql grpc protobuf http
https websocket tcp udp dns tls ssl certificate nginx caddy apache systemd journal ci pipeline workflow
github gitlab actions runner artifact lockfile manifest dependency upgrade downgrade pin semver changelog
readme docs comment docstring annotation decorator generator iterator closure lambda recursion loop
parser lexer tokenizer compiler interpreter runtime vm gc heap allocation leak pointer reference borrow
lifetime trait interface generic template macro enum struct union payload batch stream buffer chunk
pagination cursor offset limit sort filter search rank score bm25 embedding vector cosine similarity
model prompt context window agent tool hook plugin extension settings preferences rules decision pitfall
frontend backend ui component react vue svelte css tailwind layout render hydration state store reducer
signal effect router navigation form validation input output upload download image video audio font
""".split()

_ZH = """
部署 脚本 配置 依赖 接口 数据 数据库 迁移 测试 单元 集成 构建 发布 版本 分支 提交 合并 冲突 回滚
缓存 索引 查询 性能 优化 重构 日志 错误 异常 超时 重试 请求 响应 服务 服务器 客户端 前端 后端 页面
组件 状态 路由 用户 权限 登录 认证 令牌 会话 密钥 环境 变量 参数 选项 命令 终端 文件 目录 路径 模块
函数 方法 对象 属性 字段 类型 字符 整数 列表 字典 集合 数组 映射 哈希 线程 进程 异步 同步 队列 任务
定时 调度 内存 泄漏 指针 引用 编译 解释 运行 调试 断点 堆栈 追踪 监控 告警 指标 延迟 吞吐 并发 锁定
事务 提交 记录 备份 恢复 容器 镜像 集群 节点 网络 端口 代理 网关 证书 加密 解密 签名 校验 格式 规范
文档 注释 说明 问题 需求 设计 方案 决定 原因 结果 修复 补丁 升级 降级 兼容 稳定 默认 自动 手动 检查
我们 你们 他们 这个 那个 现在 之前 之后 已经 还是 但是 因为 所以 如果 然后 需要 可以 应该 不要 不能
一直 总是 每次 有时 直接 先把 再把 记得 注意 确认 发现 看到 改成 换成 用了 试了 跑了 写了 删掉 加上
项目 仓库 工程 团队 同事 周末 明天 昨天 上线 线上 本地 远程 生产 预发 开发 工具 插件 钩子 模型 上下文
中文 英文 分词 切词 二元 检索 召回 排序 评分 权重 衰减 复述 钉住 取代 规则 偏好 教训 事实 记忆 笔记
""".split()

_ZH_GLUE = list("的了在是和把用被给从到就也都又还")
_EN_GLUE = "the a to of in for with on and is was it we that this not but".split()


def _cum(words: list[str]) -> list[float]:
    return list(accumulate(1.0 / (r + 1) for r in range(len(words))))


_EN_CUM = _cum(_EN)
_ZH_CUM = _cum(_ZH)


def _zh_clause(rng: random.Random) -> str:
    words = rng.choices(_ZH, cum_weights=_ZH_CUM, k=rng.randint(3, 8))
    parts: list[str] = []
    for w in words:
        parts.append(w)
        r = rng.random()
        if r < 0.25:
            parts.append(rng.choice(_ZH_GLUE))
        elif r < 0.40:  # an English identifier inside the Chinese clause, spaced as people type it
            parts.append(" " + rng.choices(_EN, cum_weights=_EN_CUM, k=1)[0] + " ")
    return "".join(parts).strip() + rng.choice("，。，；")


def _en_sentence(rng: random.Random) -> str:
    words = rng.choices(_EN, cum_weights=_EN_CUM, k=rng.randint(4, 12))
    out: list[str] = []
    for w in words:
        if rng.random() < 0.3:
            out.append(rng.choice(_EN_GLUE))
        out.append(w)
    s = " ".join(out)
    return s[0].upper() + s[1:] + rng.choice("..,!?")[0] + " "


def text_for(rng: random.Random) -> str:
    """One synthetic memory text (40-600 chars, log-uniform length) drawn from ``rng``."""
    target = int(MIN_CHARS * (MAX_CHARS / MIN_CHARS) ** rng.random())
    zh_share = rng.choice((0.0, 0.5, 0.5, 0.8, 1.0))  # some turns are all English, some all Chinese
    out = ""
    while len(out) < target:
        out += _zh_clause(rng) if rng.random() < zh_share else _en_sentence(rng)
    if len(out) > MAX_CHARS:
        out = out[:MAX_CHARS]
    return out.strip()


def events(n: int, seed: int = 7) -> Iterator[dict]:
    """``n`` synthetic episodic events, oldest first, for ``Memdir.import_events``.

    Keys ``syn:<seed>:<i>``; sessions of :data:`SESSION_LEN` turns; roles user / assistant, with every
    fifth turn a tool summary; ``ts`` spread evenly over the :data:`SPAN_DAYS` days before :data:`NOW`
    (ISO 8601 UTC strings). Raises ``ValueError`` for a negative ``n``.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(f"events:{seed}")
    start = NOW - timedelta(days=SPAN_DAYS)
    step = timedelta(days=SPAN_DAYS) / max(n, 1)
    for i in range(n):
        role = "tool" if i % 5 == 4 else ("user" if i % 2 == 0 else "assistant")
        yield {"key": f"syn:{seed}:{i}", "role": role, "text": text_for(rng),
               "session": f"syn-s{i // SESSION_LEN}", "ts": (start + step * i).isoformat()}


def notes(n: int, seed: int = 7) -> Iterator[dict]:
    """``n`` synthetic curated notes as keyword arguments of ``Memdir.remember`` (``text``, ``category``,
    ``summary``, ``tags``). Categories cycle through the five defaults; 1-3 tags from the vocabulary.
    Raises ``ValueError`` for a negative ``n``."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(f"notes:{seed}")
    for i in range(n):
        text = text_for(rng)
        tags = sorted(set(rng.choices(_EN + _ZH, k=rng.randint(1, 3))))
        yield {"text": text, "category": CATEGORIES[i % len(CATEGORIES)], "summary": f"note {i} " + text[:60],
               "tags": tags}


def queries(n: int, seed: int = 7) -> list[str]:
    """``n`` query strings: a third Chinese (``数据库迁移``), a third English (``pytest fixture timeout``),
    a third mixed (``部署 pnpm lockfile``); words from the middle of the frequency range (ranks 5-150),
    as people search for specific things, not for the most common words."""
    rng = random.Random(f"queries:{seed}")
    zh, en = _ZH[5:150], _EN[5:150]
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            q = "".join(rng.sample(zh, rng.randint(2, 3)))
        elif kind == 1:
            q = " ".join(rng.sample(en, rng.randint(2, 4)))
        else:
            q = "".join(rng.sample(zh, rng.randint(1, 2))) + " " + " ".join(rng.sample(en, rng.randint(1, 2)))
        out.append(q)
    return out
