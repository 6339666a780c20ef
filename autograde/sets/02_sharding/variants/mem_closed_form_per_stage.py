# replaces: zero_memory_per_gpu
# differs: one closed formula per stage, algebraically equal to the reference's sum of three terms:
#          (4 + K)Ψ, 4Ψ + KΨ/N, 2Ψ + (2 + K)Ψ/N, (4 + K)Ψ/N
def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if stage not in (0, 1, 2, 3) or type(stage) is bool:
        raise ValueError(f"unknown ZeRO stage {stage!r}: use 0, 1, 2 or 3")
    if n_params <= 0 or dp_size <= 0:
        raise ValueError(f"n_params and dp_size must be positive, got {n_params!r} and {dp_size!r}")
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k!r}")
    psi, n = n_params, dp_size
    if stage == 0:
        return float((4 + k) * psi)
    if stage == 1:
        return 4 * psi + k * psi / n
    if stage == 2:
        return 2 * psi + (2 + k) * psi / n
    return (4 + k) * psi / n
