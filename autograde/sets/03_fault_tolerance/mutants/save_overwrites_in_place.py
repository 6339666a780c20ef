# replaces: save_checkpoint
# wrong: serializes to memory first, then overwrites `path` in place ("one write is atomic enough"): a crash after the
#   open truncated the file and before the write ends leaves a partial checkpoint (caught by the hidden kill point)
# must-lose: save_checkpoint_survives_kill
# must-keep: save_load_round_trip, load_checkpoint_errors, load_checkpoint_refuses_code, young_interval_values, daly_interval_values
def save_checkpoint(path, state):
    """Write the dict `state` to `path`."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    with open(path, "wb") as f:
        f.write(buffer.getvalue())
        f.flush()
        os.fsync(f.fileno())
