# replaces: save_checkpoint
# differs: tempfile.NamedTemporaryFile(dir=..., delete=False) instead of mkstemp, then os.replace; cleans up in except
def save_checkpoint(path, state):
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    tmp = tempfile.NamedTemporaryFile(dir=folder, prefix=".checkpoint-", suffix=".tmp", delete=False)
    try:
        with tmp:
            torch.save(state, tmp)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp.name, path)
    except BaseException:
        if os.path.exists(tmp.name):
            os.unlink(tmp.name)
        raise
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
