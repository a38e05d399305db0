"""Semantic versions: validation and precedence as specified on semver.org."""

from __future__ import annotations

import pytest

from biasforge.errors import BiasforgeError
from biasforge.exports.versions import parse_version, previous_version


def test_precedence_example_from_the_specification():
    # semver.org §11: 1.0.0-alpha < 1.0.0-alpha.1 < 1.0.0-alpha.beta < 1.0.0-beta <
    # 1.0.0-beta.2 < 1.0.0-beta.11 < 1.0.0-rc.1 < 1.0.0, and 1.9.0 < 1.10.0 < 1.11.0.
    chain = [
        "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
        "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.9.0", "1.10.0", "1.11.0", "2.0.0",
    ]  # fmt: skip
    parsed = [parse_version(v) for v in chain]
    assert [str(v) for v in parsed] == chain
    assert sorted(reversed(parsed)) == parsed


@pytest.mark.parametrize(
    "bad", ["1", "1.0", "1.0.0.0", "v1.0.0", "1.01.0", "1.0.0-", "1.0.0+x", ""]
)
def test_invalid(bad):
    with pytest.raises(BiasforgeError, match="invalid version"):
        parse_version(bad)


def test_previous_version_is_the_highest_lower_finished_release(tmp_path):
    for version in ("0.9.0", "1.0.0", "1.2.0", "not-a-version", ".1.1.0.partial-x"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "manifest.json").write_text("{}")
    (tmp_path / "1.1.0").mkdir()  # no manifest: not a finished release
    found = previous_version(tmp_path, parse_version("1.1.5"))
    assert found is not None and str(found[0]) == "1.0.0"
    assert previous_version(tmp_path, parse_version("0.1.0")) is None
    assert str(previous_version(tmp_path, parse_version("2.0.0-rc.1"))[0]) == "1.2.0"
