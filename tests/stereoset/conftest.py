"""Fixtures: the environment of a CLI subprocess pointed at the fake DeepL server
(``fake_deepl`` in tests/conftest.py), StereoSet rows and sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SHARED

FULL_SOURCE = SHARED / "data" / "stereoset" / "stereoset_dev_en.jsonl"
SAMPLE = (
    Path(__file__).resolve().parents[2] / "curation" / "data" / "stereoset" / "sample_dev_en.jsonl"
)


@pytest.fixture
def deepl_env(fake_deepl) -> dict[str, str]:
    """Environment for a CLI subprocess pointed at the fake server."""
    return {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def intra(target, context, s, a, u, bias_type="profession") -> dict:
    def fill(attribute: str) -> str:
        return context.replace("BLANK", attribute)

    return {
        "type": "intrasentence",
        "target": target,
        "bias_type": bias_type,
        "context": context,
        "stereotype": fill(s),
        "anti-stereotype": fill(a),
        "unrelated": fill(u),
    }


def inter(target, context, s, a, u, bias_type="gender") -> dict:
    return {
        "type": "intersentence",
        "target": target,
        "bias_type": bias_type,
        "context": context,
        "stereotype": s,
        "anti-stereotype": a,
        "unrelated": u,
    }
