"""Exports: versioned releases of reviewed items, dataset cards, and compatibility formats."""
