"""The /stats fairness test and histogram."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from PIL import Image

from bot.stats.charts import histogram_png
from bot.stats.fairness import chi_square, upper_regularized_gamma

DR_SHARE = {n: Fraction(6 - abs(n - 7), 36) for n in range(2, 13)}

# (dof, x, survival function) from statistical tables / scipy.stats.chi2.sf
REFERENCE = [
    (1, 3.841458820694124, 0.05),
    (5, 11.070497693516351, 0.05),
    (5, 15.08627246938899, 0.01),
    (10, 23.209251158954356, 0.01),
    (10, 2.0, 0.9963401531726563),
    (35, 40.0, 0.2577813812531309),
]


@pytest.mark.parametrize(("dof", "x", "p"), REFERENCE)
def test_p_values_match_the_chi_square_tables(dof: int, x: float, p: float) -> None:
    assert upper_regularized_gamma(dof / 2, x / 2) == pytest.approx(p, rel=1e-9)


def test_perfectly_even_dice_are_fair() -> None:
    result = chi_square({face: 100 for face in range(1, 7)})
    assert result.sample_size == 600
    assert result.statistic == 0
    assert result.p_value == pytest.approx(1.0)
    assert "600 rolls" in result.verdict()
    assert "consistent with fair dice" in result.verdict()


def test_loaded_dice_are_flagged() -> None:
    result = chi_square({1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 60})
    assert result.enough_data
    assert result.p_value < 1e-6
    assert "unusually far from fair dice" in result.verdict()


def test_small_samples_say_so_instead_of_judging() -> None:
    result = chi_square({n: 1 for n in range(2, 13)}, DR_SHARE)
    assert not result.enough_data
    assert "too few" in result.verdict()
    assert "11 rolls" in result.verdict()


def test_DR_totals_use_their_exact_shares() -> None:
    counts = {n: int(share * 3600) for n, share in DR_SHARE.items()}
    result = chi_square(counts, DR_SHARE)
    assert result.degrees_of_freedom == 10
    assert result.statistic == pytest.approx(0.0)


def test_shares_must_sum_to_one() -> None:
    with pytest.raises(ValueError):
        chi_square({1: 3}, {1: Fraction(1, 2)})


def test_histogram_is_a_png_with_a_bar_per_result() -> None:
    data = histogram_png({2: 1, 7: 6, 12: 1}, "DR totals — 8 rolls", DR_SHARE)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.size == (640, 360)
    # the tallest bar (7) is drawn in the bar colour somewhere in its column
    colours = {image.getpixel((x, 250)) for x in range(40, 620)}
    assert (88, 101, 242) in colours


def test_histogram_of_nothing_still_draws() -> None:
    image = Image.open(io.BytesIO(histogram_png({}, "no rolls")))
    assert image.format == "PNG"


def test_one_roll_is_counted_in_english() -> None:
    """Regression (issue 24's plurals): "1 rolls are too few"."""
    one = chi_square({1: 1, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0})
    assert one.verdict().startswith("1 roll is too few for a fairness test")
    assert chi_square({1: 1, 2: 1}).verdict().startswith("2 rolls are too few")


def test_one_degree_of_freedom_is_counted_in_english() -> None:
    """Regression (issue 24's plurals): a d2's test said "1 degrees of freedom"."""
    coin = chi_square({1: 30, 2: 30}).verdict()
    assert "with 1 degree of freedom, p = 1.000" in coin, coin
    assert "with 5 degrees of freedom" in chi_square({f: 10 for f in range(1, 7)}).verdict()
