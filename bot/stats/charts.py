"""The dice histogram posted by ``/stats``: a small PNG drawn with Pillow.

One bar per result (faces 1-6 of a dr, totals 2-12 of a DR), the count above each bar, and a tick
for the count fair dice would give on average, so a glance tells whether a player's dice ran hot.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from fractions import Fraction

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 640, 360
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 40, 20, 50, 40
BACKGROUND = (47, 49, 54)  # Discord's dark theme, so the image sits well in an embed
BAR = (88, 101, 242)
EXPECTED = (250, 166, 26)
TEXT = (220, 221, 222)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def histogram_png(
    counts: Mapping[int, int],
    title: str,
    expected_share: Mapping[int, Fraction] | None = None,
) -> bytes:
    """A PNG histogram of ``counts`` (result → how often), with fair-dice expectation ticks.

    :param counts: how often each result was rolled; results in ``expected_share`` that were
        never rolled are drawn as empty bars.
    :param title: the heading, e.g. ``"DR totals — alice, this game (120 rolls)"``.
    :param expected_share: exact probability of each result under fair dice.
    """
    results = sorted(set(counts) | set(expected_share or {}))
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    # Pillow's built-in font has no dashes or other typographic glyphs: keep the title plain.
    plain = title.replace("—", "-").replace("–", "-").encode("latin-1", "replace").decode()
    draw.text((MARGIN_LEFT, 14), plain, fill=TEXT, font=_font(18))
    if not results:
        draw.text((MARGIN_LEFT, HEIGHT // 2), "no rolls yet", fill=TEXT, font=_font(16))
        return _png(image)
    total = sum(counts.values())
    expected = {r: float(share) * total for r, share in (expected_share or {}).items()}
    top = max([*counts.values(), *expected.values(), 1])
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    slot = plot_w / len(results)
    small = _font(13)
    base_y = MARGIN_TOP + plot_h
    draw.line((MARGIN_LEFT, base_y, WIDTH - MARGIN_RIGHT, base_y), fill=TEXT)
    for i, result in enumerate(results):
        x0 = MARGIN_LEFT + i * slot + slot * 0.15
        x1 = MARGIN_LEFT + (i + 1) * slot - slot * 0.15
        count = counts.get(result, 0)
        bar_h = plot_h * count / top
        if count:
            draw.rectangle((x0, base_y - bar_h, x1, base_y), fill=BAR)
        label_y = base_y - bar_h
        if result in expected:
            y = base_y - plot_h * expected[result] / top
            draw.line((x0 - 3, y, x1 + 3, y), fill=EXPECTED, width=2)
            label_y = min(label_y, y)
        draw.text(((x0 + x1) / 2, label_y - 4), str(count), fill=TEXT, font=small, anchor="mb")
        draw.text(((x0 + x1) / 2, base_y + 6), str(result), fill=TEXT, font=small, anchor="mt")
    return _png(image)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


__all__ = ["histogram_png"]
