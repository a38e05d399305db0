"""Shared inputs for the SlguSet tests: the real lexicon and name model, real jieba."""

from __future__ import annotations

import pytest

from tests.conftest import SHARED

PEOPLES_DAILY = SHARED / "data" / "zh_news" / "peoples_daily_dev.jsonl"


@pytest.fixture(scope="session")
def lexicon():
    from curation.slguset.lexicon import load_lexicon

    return load_lexicon()


@pytest.fixture(scope="session")
def model():
    from curation.slguset.names import load_models

    return load_models()["fast"]


@pytest.fixture(scope="session")
def peoples_daily():
    if not PEOPLES_DAILY.is_file():
        pytest.fail(f"{PEOPLES_DAILY} is missing: the shared data folder must sit beside the repo")
    return PEOPLES_DAILY
