# replaces: DynamicLossScaler
# differs: keeps one state per optimizer (keyed by id, as GradScaler does) and combines them in update(); warns (a
#   UserWarning) when the initial scale is not a power of two; uses math.frexp to test it
import warnings


def _to_fp32(value):
    return torch.tensor([value], dtype=torch.float32).tolist()[0]


class DynamicLossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        if not (init_scale > 0 and growth_factor > 1 and 0 < backoff_factor < 1):
            raise ValueError("need init_scale > 0, growth_factor > 1 and 0 < backoff_factor < 1")
        if isinstance(growth_interval, bool) or not isinstance(growth_interval, int) or growth_interval <= 0:
            raise ValueError("growth_interval must be a positive integer")
        if math.frexp(init_scale)[0] != 0.5:
            warnings.warn(f"init_scale={init_scale} is not a power of two: unscaling will round")
        self._scale = _to_fp32(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._tracker = 0
        self._per_optimizer = {}

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"unscaled": False, "found_inf": False})

    def scale(self, loss):
        return loss * torch.tensor(self._scale, dtype=torch.float32)

    def unscale_(self, optimizer):
        state = self._state(optimizer)
        if state["unscaled"]:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update()")
        inv_scale = torch.tensor(1.0 / self._scale, dtype=torch.float64).float()
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                state["found_inf"] = state["found_inf"] or not torch.isfinite(param.grad).all().item()
                param.grad.mul_(inv_scale)
        state["unscaled"] = True

    def step(self, optimizer, *args, **kwargs):
        if not self._state(optimizer)["unscaled"]:
            self.unscale_(optimizer)
        if self._state(optimizer)["found_inf"]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self):
        if any(state["found_inf"] for state in self._per_optimizer.values()):
            self._scale, self._tracker = _to_fp32(self._scale * self._backoff_factor), 0
        else:
            self._tracker += 1
            if self._tracker == self._growth_interval:
                new_scale = _to_fp32(self._scale * self._growth_factor)
                if new_scale < math.inf:
                    self._scale = new_scale
                self._tracker = 0
        self._per_optimizer.clear()

    def get_scale(self):
        return self._scale

    def state_dict(self):
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._tracker}

    def load_state_dict(self, state_dict):
        self._scale = _to_fp32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._tracker = state_dict["_growth_tracker"]
