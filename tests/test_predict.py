"""distlab.check_prediction: what it prints and returns for a guess, no guess, and a guess that is not a number.

    pytest -q tests/test_predict.py
"""
import numpy as np
import pytest
import torch

import distlab


def test_no_guess_prints_the_answer_and_returns_none(capsys):
    assert distlab.check_prediction("bytes_guess", None, 72, unit="B") is None
    assert capsys.readouterr().out == "bytes_guess: no prediction entered; the answer is 72 B.\n"


def test_an_exact_guess_is_close_and_says_exact(capsys):
    assert distlab.check_prediction("calls_guess", 6, 6, rel_tol=0) is True
    assert capsys.readouterr().out == "calls_guess: you guessed 6; measured 6: exact.\n"


def test_a_guess_too_high_says_the_ratio_and_the_tolerance(capsys):
    assert distlab.check_prediction("bytes_guess", 96, 72, unit="B") is False
    assert capsys.readouterr().out == (
        "bytes_guess: you guessed 96 B; measured 72 B: 1.33x the measured value (33% too high), outside ±10%.\n")


def test_a_guess_within_tolerance_is_close(capsys):
    assert distlab.check_prediction("t", 0.95, 1.0, rel_tol=0.1, unit="s") is True
    assert "0.95x the measured value (5% too low), within ±10%" in capsys.readouterr().out


def test_rel_tol_zero_wants_the_exact_count(capsys):
    assert distlab.check_prediction("n", 7, 6, rel_tol=0) is False
    assert capsys.readouterr().out.endswith("(17% too high), not exact.\n")


def test_a_measured_zero_is_matched_only_by_zero(capsys):
    assert distlab.check_prediction("n", 0, 0) is True
    assert distlab.check_prediction("n", 3, 0) is False
    assert "off by 3" in capsys.readouterr().out


def test_large_integers_are_printed_with_separators(capsys):
    distlab.check_prediction("bytes_guess", 3 * 2**20, 3 * 2**20, unit="B")
    assert "3,145,728 B" in capsys.readouterr().out


def test_numpy_and_one_element_tensors_count_as_numbers():
    assert distlab.check_prediction("g", np.float32(2.0), torch.tensor(2.0)) is True
    assert distlab.check_prediction("g", np.int64(5), 5) is True


@pytest.mark.parametrize("bad", ["96", True, [96], torch.ones(2)])
def test_a_guess_that_is_not_a_number_is_a_type_error_naming_the_variable(bad):
    with pytest.raises(TypeError, match="bytes_guess must be a number"):
        distlab.check_prediction("bytes_guess", bad, 72)
