# replaces: DynamicLossScaler
# wrong: hands the work to torch.amp.GradScaler, the reference the checks compare with (issue 31: it took 20/20;
#   issue 45: still 2 in scaler_trains_the_tiny_model, whose ranks did not refuse GradScaler)
# must-lose: scaler_scales_and_unscales, scaler_matches_gradscaler, scaler_skips_overflowing_steps,
#   scaler_state_dict_resumes, scaler_trains_the_tiny_model
import torch


class DynamicLossScaler(torch.amp.GradScaler):
    """GradScaler itself, on the CPU."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval)
