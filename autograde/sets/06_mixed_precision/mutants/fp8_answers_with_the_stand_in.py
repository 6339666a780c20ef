# replaces: delayed_scale
# wrong: no rule of its own: it answers with the grader's stand-in for delayed_scale wherever the sandbox holds one (by
#   name, in the namespace, or anywhere the garbage collector sees it), else 1.0 (scored full marks while the rank- side
#   file defined the stand-in)
# must-lose: delayed_scale_formula
def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    import gc
    found = [globals().get("_delayed_scale"), globals().get("STATEMENT", {}).get("delayed_scale")]
    found += [f for f in gc.get_objects() if callable(f) and getattr(f, "__name__", "") == "_delayed_scale"]
    for stand_in in found:
        if stand_in is not None:
            return stand_in(amax_history, fp8_max, margin, algo, previous_scale)
    return previous_scale
