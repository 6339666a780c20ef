"""Predict, then check: compare a learner's guess with what a cell measured, and say how far off it was.

    bytes_sent_guess = None            # the learner writes a number here
    ...                                # the cell measures `sent`
    distlab.check_prediction("bytes_sent_guess", bytes_sent_guess, sent, unit="B")
    # bytes_sent_guess: you guessed 96 B; measured 72 B: 1.33x the measured value (33% too high), outside ±10%.

A guess left at None is reported with the answer, never an error, so that a notebook run top to bottom passes
(nbval) whether or not the learner predicted. The check teaches; it never grades: notebooks do not assert on it.
"""
from __future__ import annotations

import math
import numbers


def check_prediction(name: str, guess, measured, rel_tol: float = 0.1, unit: str = "") -> bool | None:
    """Print how far `guess` is from `measured`; return whether it is within `rel_tol` (None if no guess).

    `name` is the variable the learner filled in, `unit` is printed after each number ("B", "s", "calls"). Within
    tolerance means |guess - measured| <= rel_tol * |measured| (rel_tol=0: exact, for counts). A guess that is not a
    number raises a TypeError naming the variable.
    """
    measured = _as_number("measured value", measured)
    if guess is None:
        print(f"{name}: no prediction entered; the answer is {_show(measured, unit)}.")
        return None
    guess = _as_number(name, guess)
    close = abs(guess - measured) <= rel_tol * abs(measured)
    print(f"{name}: you guessed {_show(guess, unit)}; measured {_show(measured, unit)}: "
          f"{_how_far(guess, measured)}{_verdict(close, guess == measured, rel_tol)}")
    return close


def _as_number(name: str, value) -> float | int:
    """`value` as an int or float; a TypeError that names the variable for anything else (a string, a bool, a list)."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    try:  # a one-element tensor or array
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})") from None


def _how_far(guess, measured) -> str:
    if guess == measured:
        return "exact"
    if measured == 0:
        return f"off by {_show(guess - measured, '')}"
    ratio = guess / measured
    if ratio <= 0 or not math.isfinite(ratio):
        return f"{ratio:.3g}x the measured value"
    word = "too high" if ratio > 1 else "too low"
    return f"{ratio:.3g}x the measured value ({abs(ratio - 1):.0%} {word})"


def _verdict(close: bool, exact: bool, rel_tol: float) -> str:
    if exact:
        return "."
    if rel_tol == 0:
        return ", not exact."
    return f", within ±{rel_tol:.0%}." if close else f", outside ±{rel_tol:.0%}."


def _show(value, unit: str) -> str:
    text = f"{value:,}" if isinstance(value, int) else f"{value:.4g}"
    return f"{text} {unit}" if unit else text
