# replaces: save_checkpoint
# wrong: a unique temporary file in the same folder, os.replace, clean-up on error, but no fsync at all (neither the
#   file nor the folder): atomic against a killed process, not durable against a power cut
# must-lose: save_checkpoint_fsyncs
# must-keep: save_load_round_trip, load_checkpoint_errors, load_checkpoint_refuses_code, save_checkpoint_survives_kill,
#   save_checkpoint_unique_temp_name
def save_checkpoint(path, state):
    """Write the dict `state` to `path` (torch.save format) atomically."""
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
