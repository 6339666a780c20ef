# replaces: delayed_scale
# differs: written like Transformer Engine's _default_sf_compute: float64 tensors, torch.amax, and a chain of
#   torch.where (the scale computed even where it is then replaced); the errors are a ValueError subclass
class FP8RecipeError(ValueError):
    pass


def delayed_scale(amax_history, fp8_max, margin=0, algo="max", previous_scale=1.0):
    for name, ok in [("fp8_max", 0 < fp8_max < math.inf), ("margin", type(margin) is int and margin >= 0),
                     ("algo", algo in ("max", "most_recent"))]:
        if not ok:
            raise FP8RecipeError(f"bad {name}: {dict(fp8_max=fp8_max, margin=margin, algo=algo)[name]!r}")
    history = torch.tensor(list(amax_history), dtype=torch.float64)
    if bool((history < 0).any()):
        raise FP8RecipeError("amax_history must not hold a negative amax")
    if history.numel() == 0:
        return previous_scale
    amax = torch.amax(history) if algo == "max" else history[-1]
    previous = torch.tensor(previous_scale, dtype=torch.float64)
    sf = (fp8_max / amax) / (2**margin)
    sf = torch.where(amax > 0.0, sf, previous)
    sf = torch.where(torch.isfinite(amax), sf, previous)
    fp32_max = torch.finfo(torch.float32).max
    sf = torch.where(sf > fp32_max, torch.full_like(sf, fp32_max), sf)
    return sf.item()
