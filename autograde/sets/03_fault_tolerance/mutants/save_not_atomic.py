# replaces: save_checkpoint
# wrong: torch.save(state, path) straight into the final file: it truncates `path` first, so a crash mid-save leaves a
#   partial file where the previous checkpoint was (and so does a save that raises)
# must-lose: save_checkpoint_survives_kill, save_load_round_trip
# must-keep: load_checkpoint_errors, load_checkpoint_refuses_code, young_interval_values, daly_interval_values
def save_checkpoint(path, state):
    """Write the dict `state` to `path`."""
    torch.save(state, path)
