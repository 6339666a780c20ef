# replaces: save_checkpoint
# wrong: temporary file, fsync and rename all right, but a save that raises (a state pickle cannot serialize) leaves
#   its temporary file behind in the checkpoint folder, one more at every failed save
# must-lose: save_load_round_trip
# must-keep: save_checkpoint_survives_kill, load_checkpoint_errors, load_checkpoint_refuses_code
def save_checkpoint(path, state):
    """Write the dict `state` to `path` (torch.save format) atomically."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    with os.fdopen(fd, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    folder_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(folder_fd)
    finally:
        os.close(folder_fd)
