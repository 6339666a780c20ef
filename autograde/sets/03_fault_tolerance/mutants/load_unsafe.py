# replaces: load_checkpoint
# wrong: torch.load(..., weights_only=False): unpickling a crafted file runs the code it names
# must-lose: load_checkpoint_refuses_code
# must-keep: save_load_round_trip, load_checkpoint_errors, save_checkpoint_survives_kill, young_interval_values, daly_interval_values
def load_checkpoint(path):
    """Load what save_checkpoint wrote."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no checkpoint at {path!r}")
    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:
        raise ValueError(f"cannot load the checkpoint {path!r}: {exc}") from exc
