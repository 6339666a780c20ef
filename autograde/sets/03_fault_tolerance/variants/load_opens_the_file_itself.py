# replaces: load_checkpoint
# differs: opens the file itself (FileNotFoundError from open, re-raised with the path) and hands torch.load the
#          open file; checks the result is a dict inside the same try
def load_checkpoint(path):
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise FileNotFoundError(f"checkpoint not found: {os.fspath(path)}") from None
    with f:
        try:
            state = torch.load(f, map_location="cpu", weights_only=True)
            if not isinstance(state, dict):
                raise TypeError(f"expected a dict, found {type(state).__name__}")
        except Exception as exc:
            raise ValueError(f"{os.fspath(path)} is not a checkpoint that loads safely ({exc})") from exc
    return state
