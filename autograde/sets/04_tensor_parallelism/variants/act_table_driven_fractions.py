# replaces: activation_memory_per_layer
# differs: a table of Table 2's rows evaluated with fractions.Fraction (exact) and returned as an int; validation
#   written with numpy arrays, in another order
from fractions import Fraction

import numpy as np

TABLE_2 = {  # (sequence_parallel, recompute) -> per-layer bytes / sbh, as a function of (a, s, h, t)
    (False, "none"): lambda a, s, h, t: 10 + Fraction(24, t) + Fraction(5 * a * s, h * t),
    (True, "none"): lambda a, s, h, t: Fraction(34, t) + Fraction(5 * a * s, h * t),
    (False, "selective"): lambda a, s, h, t: 10 + Fraction(24, t),
    (True, "selective"): lambda a, s, h, t: Fraction(34, t),
    (False, "full"): lambda a, s, h, t: 2,
    (True, "full"): lambda a, s, h, t: Fraction(2, t),
}


def activation_memory_per_layer(s, b, h, a, t=1, sequence_parallel=False, recompute="none"):
    """Bytes of activations one Transformer layer keeps for the backward pass (Korthikanti et al. 2022, Table 2)."""
    sizes = np.array([s, b, h, a, t])
    if np.any(sizes <= 0):
        raise ValueError(f"sizes must be positive: s={s}, b={b}, h={h}, a={a}, t={t}")
    if np.any(np.array([a, h]) % t != 0):
        raise ValueError(f"the tensor-parallel size {t} must divide a={a} and h={h}")
    key = (bool(sequence_parallel), recompute)
    if key not in TABLE_2:
        raise ValueError(f"unknown recompute {recompute!r}")
    return int(s * b * h * TABLE_2[key](a, s, h, t))
