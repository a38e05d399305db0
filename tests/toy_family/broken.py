"""A family whose curation command cannot be imported (as a broken third-party package)."""

from dataclasses import replace

from tests.toy_family import FAMILY

BROKEN = replace(FAMILY, name="broken", curation="tests.toy_family.no_such_module:command")
