# replaces: delayed_scales
# differs: a helper class holds one tensor's recipe state (its history and scale), as Transformer Engine's fp8_meta
#   does; each step reads the scale, then records the amax and updates the scale for the next step
class _TensorRecipe:
    def __init__(self, fp8_max, history_len, margin, algo):
        self.fp8_max, self.history_len, self.margin, self.algo = fp8_max, history_len, margin, algo
        self.history, self.scale = [], 1.0

    def record(self, amax):
        self.history = (self.history + [amax])[-self.history_len:]
        self.scale = delayed_scale(self.history, self.fp8_max, self.margin, self.algo, previous_scale=self.scale)


def delayed_scales(amaxes, fp8_max, history_len, margin=0, algo="max"):
    if not (type(history_len) is int and history_len > 0):
        raise ValueError("history_len must be a positive integer, got " + repr(history_len))
    recipe, used = _TensorRecipe(fp8_max, history_len, margin, algo), []
    for amax in amaxes:
        used.append(recipe.scale)
        recipe.record(amax)
    return used
