# replaces: llama_activation_memory_per_layer
# differs: NumPy arrays of element counts and divisors, a dot product; returns a numpy.float64
import numpy as np


def llama_activation_memory_per_layer(s, b, h, a, a_kv, f, t=1, sequence_parallel=False, recompute="none"):
    sizes = np.array([s, b, h, a, a_kv, f, t])
    if (sizes <= 0).any():
        raise ValueError(f"sizes must be positive: {sizes.tolist()}")
    if a % a_kv or a_kv % t or f % t:
        raise ValueError("a_kv must divide a, and t must divide a_kv and f")
    if recompute not in ("none", "selective", "full"):
        raise ValueError(f"recompute={recompute!r}")
    whole = t if sequence_parallel else 1
    if recompute == "full":
        return np.float64(2 * s * b * h) / whole
    elements = np.array([4 * s * b * h, s * b * h, 2 * s * b * h * a_kv / a, s * b * h, 4 * s * b * f,
                         a * s * s * b * (recompute == "none")], dtype=np.float64)
    divisors = np.array([whole, t, t, t, t, t], dtype=np.float64)
    return 2 * np.sum(elements / divisors)
