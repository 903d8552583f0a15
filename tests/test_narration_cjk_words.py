"""A Chinese agent turn is an announced step when it starts with 来 / 开始 / 我要 as a verb ("好的，开始执行计划。",
"来看一下。"), not when those characters begin another word: 来自 (from), 来源 (source), 开始时间 (start time),
开始于 (began at), 我要的 (what I want): such a turn states a finding or a choice and keeps its full weight."""

from __future__ import annotations

import pytest

from memdir.inject.entries import narration


@pytest.mark.parametrize("text", [
    "来自上游的bug已经修复。",
    "来源是 nginx 的日志，不是应用日志。",
    "开始时间改成了早上9点。",
    "开始于 v2.3 版本的回归，已回滚。",
    "我要的是JSON格式，不是YAML。",
    "来回切换分支导致缓存失效。",
])
def test_a_finding_that_starts_with_those_characters_is_no_narration(text):
    assert not narration(text)


@pytest.mark.parametrize("text", ["好的，开始执行计划。", "来看一下日志。", "开始运行测试。", "我要先检查配置。", "让我检查一下 GPU 型号。"])
def test_an_announced_step_still_is(text):
    assert narration(text)
