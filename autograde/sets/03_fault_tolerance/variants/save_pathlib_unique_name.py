# replaces: save_checkpoint
# differs: pathlib throughout; the temporary name is made unique from the process id and a uuid, opened with "xb"
import uuid


def save_checkpoint(path, state):
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with tmp.open("xb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    folder = os.open(path.resolve().parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
