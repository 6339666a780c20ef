# replaces: save_checkpoint
# wrong: the temporary file is always `path + ".tmp"` (fsyncs, os.replace and clean-up all right): two saves at the
#   same time, from two threads or processes, write into the same temporary file
# must-lose: save_checkpoint_unique_temp_name
# must-keep: save_load_round_trip, load_checkpoint_errors, load_checkpoint_refuses_code, save_checkpoint_survives_kill,
#   save_checkpoint_fsyncs
def save_checkpoint(path, state):
    """Write the dict `state` to `path` (torch.save format) atomically."""
    path = os.path.abspath(os.fspath(path))
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    folder = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
