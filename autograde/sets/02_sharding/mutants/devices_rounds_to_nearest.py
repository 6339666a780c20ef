# replaces: min_devices_to_fit
# wrong: rounds the number of devices to the nearest integer instead of up: half the time one device too few (and
#   0 devices for a model that fits on less than half of one)
# must-lose: min_devices_paper_model, min_devices_other_models
def min_devices_to_fit(n_params, memory_bytes, stage, k=12):
    replicated = {0: 4 + k, 1: 4, 2: 2, 3: 0}[stage] * n_params
    sharded = (4 + k) * n_params - replicated
    if sharded == 0:
        return 1 if replicated <= memory_bytes else None
    if memory_bytes <= replicated:
        return None
    return round(sharded / (memory_bytes - replicated))  # BUG: should round up (math.ceil)
