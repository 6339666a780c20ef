# replaces: zero_memory_per_gpu
# differs: computes with exact fractions.Fraction intermediates and converts to float only at the end
from fractions import Fraction


def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if stage not in {0, 1, 2, 3}:
        raise ValueError("stage must be one of 0, 1, 2, 3")
    if not (n_params > 0 and dp_size > 0):
        raise ValueError("n_params and dp_size must both be > 0")
    if k < 0:
        raise ValueError("k (optimizer bytes per parameter) must not be negative")
    psi, n = Fraction(n_params), Fraction(dp_size)
    total = 2 * psi / (n if stage == 3 else 1) + 2 * psi / (n if stage >= 2 else 1) + Fraction(k) * psi / (n if stage else 1)
    return float(total)
