# replaces: zero_memory_per_gpu
# differs: a match statement on the stage, validation after it; parameters, gradients and states named per case
def zero_memory_per_gpu(n_params, dp_size, stage, k=12):
    if not n_params > 0:
        raise ValueError(f"n_params must be positive: {n_params}")
    if not dp_size > 0:
        raise ValueError(f"dp_size must be positive: {dp_size}")
    if not k >= 0:
        raise ValueError(f"k must be non-negative: {k}")
    match stage:
        case 0:
            params, grads, states = 2 * n_params, 2 * n_params, k * n_params
        case 1:
            params, grads, states = 2 * n_params, 2 * n_params, k * n_params / dp_size
        case 2:
            params, grads, states = 2 * n_params, 2 * n_params / dp_size, k * n_params / dp_size
        case 3:
            params, grads, states = 2 * n_params / dp_size, 2 * n_params / dp_size, k * n_params / dp_size
        case _:
            raise ValueError(f"stage must be 0, 1, 2 or 3, not {stage}")
    return float(params + grads + states)
