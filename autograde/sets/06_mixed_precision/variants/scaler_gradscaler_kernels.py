# replaces: DynamicLossScaler
# differs: keeps S in a 0-dim float32 tensor and the count in an int32 tensor, as GradScaler does, and calls
#   GradScaler's own kernels (torch._amp_foreach_non_finite_check_and_unscale_, torch._amp_update_scale_); the
#   state dict holds plain numbers under its own key names
class DynamicLossScaler:
    """Dynamic loss scaling with torch's AMP kernels: the state lives in tensors."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        checks = {"init_scale > 0": init_scale > 0, "growth_factor > 1": growth_factor > 1,
                  "0 < backoff_factor < 1": 0 < backoff_factor < 1,
                  "growth_interval a positive int": isinstance(growth_interval, int) and growth_interval >= 1}
        failed = [rule for rule, ok in checks.items() if not ok]
        if failed:
            raise ValueError("DynamicLossScaler needs " + ", ".join(failed))
        self.scale_tensor = torch.full((), init_scale, dtype=torch.float32)
        self.tracker = torch.zeros((), dtype=torch.int32)
        self.factors = (growth_factor, backoff_factor, growth_interval)
        self.found_inf = torch.zeros(())
        self.unscaled = False

    def scale(self, loss):
        return loss * self.scale_tensor

    def unscale_(self, optimizer):
        if self.unscaled:
            raise RuntimeError("unscale_() called twice in one step")
        inv = self.scale_tensor.double().reciprocal().float()
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        if grads:
            torch._amp_foreach_non_finite_check_and_unscale_(grads, self.found_inf, inv)
        self.unscaled = True

    def step(self, optimizer, *args, **kwargs):
        if not self.unscaled:
            self.unscale_(optimizer)
        return None if self.found_inf.item() else optimizer.step(*args, **kwargs)

    def update(self):
        growth, backoff, interval = self.factors
        torch._amp_update_scale_(self.scale_tensor, self.tracker, self.found_inf, growth, backoff, interval)
        self.found_inf.zero_()
        self.unscaled = False

    def get_scale(self):
        return self.scale_tensor.item()

    def state_dict(self):
        growth, backoff, interval = self.factors
        return {"S": self.scale_tensor.item(), "count": int(self.tracker), "growth": growth, "backoff": backoff,
                "interval": interval}

    def load_state_dict(self, state):
        self.scale_tensor.fill_(state["S"])
        self.tracker.fill_(state["count"])
        self.factors = (state["growth"], state["backoff"], state["interval"])
