# replaces: min_devices_to_fit
# wrong: believes every stage divides all the model states by N ("with enough devices any model fits"): it never
#   answers None, and answers too few devices at stages 0-2
# must-lose: min_devices_paper_model, min_devices_other_models
def min_devices_to_fit(n_params, memory_bytes, stage, k=12):
    return max(1, math.ceil((4 + k) * n_params / memory_bytes))  # BUG: ignores what stages 0-2 keep whole
