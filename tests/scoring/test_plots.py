"""The report figures with Chinese text: drawn with the system's CJK font, without matplotlib
saying for every figure that the font has one weight only ("findfont: Failed to find font
weight normal…", which filled the demo's output)."""

from __future__ import annotations

import subprocess
import sys

DRAW = """
import pathlib, sys
import pandas as pd
from biasforge.scoring import plots
frame = pd.DataFrame({"panel": ["他", "他"], "category": ["男", "女"], "model": ["m", "m"],
                      "value": [0.1, 0.2], "low": [0.0, 0.1], "high": [0.2, 0.3]})
plots.interval_bars(frame, pathlib.Path(sys.argv[1]), "测试")
"""


def test_chinese_figures_are_drawn_without_font_weight_noise(tmp_path) -> None:
    from matplotlib import font_manager

    out = tmp_path / "bars.png"
    drawn = subprocess.run([sys.executable, "-c", DRAW, str(out)], capture_output=True, text=True)
    assert drawn.returncode == 0, drawn.stderr
    assert out.stat().st_size > 0
    assert "findfont" not in drawn.stderr, drawn.stderr
    cjk = [p for p in font_manager.findSystemFonts() if "wqy" in p.lower() or "cjk" in p.lower()]
    assert cjk, "the browser tests' CJK font (./dev setup installs fonts-wqy-zenhei) is missing"
