# replaces: DynamicLossScaler
# differs: counts every clean step since the last backoff and grows when that count is a multiple of the interval
#   (a stay at the top starts a new interval too); rounds to fp32 with torch.tensor(x).item() (float32 is the default
#   dtype); unscales with torch._foreach_mul_ and checks all gradients at once with torch.cat
import numbers


class DynamicLossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        if init_scale <= 0 or growth_factor <= 1 or not 0 < backoff_factor < 1:
            raise ValueError(f"bad scaler arguments: {init_scale=}, {growth_factor=}, {backoff_factor=}")
        if not isinstance(growth_interval, numbers.Integral) or growth_interval < 1:
            raise ValueError(f"growth_interval must be a positive integer, got {growth_interval}")
        self.hyper = {"growth_factor": growth_factor, "backoff_factor": backoff_factor,
                      "growth_interval": growth_interval}
        self.current = torch.tensor(init_scale).item()
        self.since_backoff = 0
        self.checked = None  # None until unscale_ ran this step, then whether it found an inf or a NaN

    def scale(self, loss):
        return self.current * loss

    def unscale_(self, optimizer):
        if self.checked is not None:
            raise RuntimeError("unscale_() has already been called since the last update()")
        grads = [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
        self.checked = bool(grads) and not torch.cat([g.flatten() for g in grads]).isfinite().all().item()
        torch._foreach_mul_(grads, torch.tensor(1.0 / self.current).item())

    def step(self, optimizer, *args, **kwargs):
        if self.checked is None:
            self.unscale_(optimizer)
        return optimizer.step(*args, **kwargs) if not self.checked else None

    def update(self):
        if self.checked:
            self.current = torch.tensor(self.current * self.hyper["backoff_factor"]).item()
            self.since_backoff = 0
        else:
            self.since_backoff += 1
            if self.since_backoff % self.hyper["growth_interval"] == 0:
                grown = torch.tensor(self.current * self.hyper["growth_factor"]).item()
                self.current = grown if grown != float("inf") else self.current
                self.since_backoff = 0
        self.checked = None

    def get_scale(self):
        return float(self.current)

    def state_dict(self):
        return {"current": self.current, "since_backoff": self.since_backoff, **self.hyper}

    def load_state_dict(self, state):
        state = dict(state)
        self.current, self.since_backoff = state.pop("current"), state.pop("since_backoff")
        self.hyper = state
