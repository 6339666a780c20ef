# replaces: load_checkpoint
# differs: pathlib.Path.is_file for the check, FileNotFoundError(errno.ENOENT, ..., path) as the OS would raise it
import errno


def load_checkpoint(path):
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, "no checkpoint", str(path))
    try:
        return dict(torch.load(path, map_location="cpu", weights_only=True))
    except Exception as error:
        raise ValueError(f"refusing to load {path}: {error}") from error
