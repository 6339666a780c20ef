# replaces: DynamicLossScaler
# differs: the state is a dataclass (asdict / replace for the state dict), the scale is rounded through a float32
#   array.array, and the overflow check sums the gradients' non-finite counts
import array
import dataclasses


def fp32(x):
    try:
        return array.array("f", [x])[0]
    except OverflowError:  # array refuses what would round to inf
        return math.copysign(math.inf, x)


@dataclasses.dataclass
class _ScalerState:
    scale: float
    growth_factor: float
    backoff_factor: float
    growth_interval: int
    clean_steps: int = 0


class DynamicLossScaler:
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        problems = []
        if not init_scale > 0:
            problems.append("init_scale must be positive")
        if not growth_factor > 1:
            problems.append("growth_factor must exceed 1")
        if not (backoff_factor > 0 and backoff_factor < 1):
            problems.append("backoff_factor must be in (0, 1)")
        if not isinstance(growth_interval, int) or growth_interval < 1:
            problems.append("growth_interval must be an int >= 1")
        if problems:
            raise ValueError("; ".join(problems))
        self.state = _ScalerState(fp32(init_scale), growth_factor, backoff_factor, growth_interval)
        self.unscaled, self.found = False, False

    def scale(self, loss):
        return loss.mul(self.state.scale)

    def unscale_(self, optimizer):
        if self.unscaled:
            raise RuntimeError("already unscaled")
        inv = fp32(1 / self.state.scale)
        bad = 0
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    bad += int((~torch.isfinite(p.grad)).sum())
                    p.grad.mul_(inv)
        self.found, self.unscaled = bad > 0, True

    def step(self, optimizer, *args, **kwargs):
        if not self.unscaled:
            self.unscale_(optimizer)
        if not self.found:
            return optimizer.step(*args, **kwargs)

    def update(self):
        s = self.state
        if self.found:
            self.state = dataclasses.replace(s, scale=fp32(s.scale * s.backoff_factor), clean_steps=0)
        elif s.clean_steps + 1 == s.growth_interval:
            grown = fp32(s.scale * s.growth_factor)
            self.state = dataclasses.replace(s, scale=grown if math.isfinite(grown) else s.scale, clean_steps=0)
        else:
            self.state = dataclasses.replace(s, clean_steps=s.clean_steps + 1)
        self.unscaled = self.found = False

    def get_scale(self):
        return self.state.scale

    def state_dict(self):
        return dataclasses.asdict(self.state)

    def load_state_dict(self, state):
        self.state = _ScalerState(**state)
