"""A misspelt ``MEMDIR_…`` variable is said, as a misspelt key of a config file is (a walkthrough: a typo in the
environment was ignored without a word). Variables that are no setting but memdir's own, or a token's, stay quiet."""

from __future__ import annotations

from memdir.config import Config


def test_a_misspelt_setting_in_the_environment_is_named_with_the_setting_it_resembles():
    cfg = Config(env={"MEMDIR_INJECT_MAXCHARS": "5000", "MEMDIR_RECALL_KK": "3"})
    assert any("MEMDIR_INJECT_MAXCHARS" in w and "MEMDIR_INJECT_MAX_CHARS" in w for w in cfg.warnings)
    assert any("MEMDIR_RECALL_KK" in w and "MEMDIR_RECALL_K?" in w for w in cfg.warnings)
    assert cfg.get("inject.max_chars") == 1200


def test_memdir_s_own_variables_and_tokens_are_not_warned_about():
    quiet = {"MEMDIR_HOME": "/x", "MEMDIR_DEBUG": "0", "MEMDIR_HOOK_WARM": "0", "MEMDIR_E2E": "1",
             "MEMDIR_REMOTE_TOKEN": "t", "MEMDIR_STORE_TOKEN": "t", "MEMDIR_INJECT_MAX_CHARS": "900",
             "MEMDIR_SOMETHING_ELSE": "1"}
    cfg = Config(env=quiet)
    assert cfg.warnings == [] and cfg.get("inject.max_chars") == 900
