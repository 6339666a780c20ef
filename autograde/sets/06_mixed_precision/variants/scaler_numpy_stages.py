# replaces: DynamicLossScaler
# differs: rounds with numpy.float32 (which warns on overflow: a RuntimeWarning, shown and harmless), follows the
#   step through a stage string ("ready", "unscaled"), checks the gradients after multiplying them, and validates
#   with assert-style helpers raising ValueError subclasses
import numpy as np


class ScalerArgumentError(ValueError):
    pass


def _require(condition, message):
    if not condition:
        raise ScalerArgumentError(message)


class DynamicLossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        _require(init_scale > 0, "init_scale must be > 0")
        _require(growth_factor > 1, "growth_factor must be > 1")
        _require(0 < backoff_factor < 1, "backoff_factor must lie in (0, 1)")
        _require(type(growth_interval) is int and growth_interval > 0, "growth_interval must be a positive int")
        self.s = float(np.float32(init_scale))
        self.growth_factor, self.backoff_factor, self.growth_interval = growth_factor, backoff_factor, growth_interval
        self.good_steps, self.stage, self.overflow = 0, "ready", False

    def scale(self, loss):
        return loss * self.s

    def unscale_(self, optimizer):
        if self.stage == "unscaled":
            raise RuntimeError("unscale_ was already called this step")
        inverse = float(np.float32(1.0 / self.s))
        for group in optimizer.param_groups:
            for p in (p for p in group["params"] if p.grad is not None):
                p.grad *= inverse
                if not torch.isfinite(p.grad).all():  # inf * 1/S and NaN * 1/S stay what they are
                    self.overflow = True
        self.stage = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        if self.stage == "ready":
            self.unscale_(optimizer)
        if self.overflow:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self):
        if self.overflow:
            self.s, self.good_steps = float(np.float32(self.s * self.backoff_factor)), 0
        elif self.good_steps + 1 < self.growth_interval:
            self.good_steps += 1
        else:
            candidate = np.float32(self.s * self.growth_factor)
            self.s = self.s if np.isinf(candidate) else float(candidate)
            self.good_steps = 0
        self.stage, self.overflow = "ready", False

    def get_scale(self):
        return self.s

    def state_dict(self):
        return dict(vars(self))

    def load_state_dict(self, state):
        vars(self).update(state)
