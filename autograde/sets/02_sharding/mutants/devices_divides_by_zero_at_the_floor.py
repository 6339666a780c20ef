# replaces: min_devices_to_fit
# wrong: tests the floor with < instead of <=: when the memory is exactly what a stage keeps whole, it divides by zero
#   (ZeroDivisionError) instead of answering None
# must-lose: min_devices_other_models
# must-keep: min_devices_paper_model
def min_devices_to_fit(n_params, memory_bytes, stage, k=12):
    replicated = {0: 4 + k, 1: 4, 2: 2, 3: 0}[stage] * n_params
    sharded = (4 + k) * n_params - replicated
    if sharded == 0:
        return 1 if replicated <= memory_bytes else None
    if memory_bytes < replicated:  # BUG: memory == replicated leaves nothing for the sharded part, whatever N
        return None
    return max(1, math.ceil(sharded / (memory_bytes - replicated)))
