# replaces: rendezvous
# wrong: checks none of its arguments
# must-lose: rendezvous_rejects_bad_arguments
# must-keep: rendezvous_assigns_ranks, rendezvous_deadline_names_missing
@@ -2,10 +2,4 @@
     """Join the group of `world_size` processes that meet on `store`, as `name`; wait until all have arrived (at most
     `timeout_s` seconds) and return (rank, names): every member's name, sorted, and the position of `name` in it."""
-    if not isinstance(name, str) or not name:
-        raise ValueError(f"name must be a non-empty string, got {name!r}")
-    if type(world_size) is not int or world_size < 1:
-        raise ValueError(f"world_size must be an int >= 1, got {world_size!r}")
-    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s < math.inf:
-        raise ValueError(f"timeout_s must be a finite number of seconds > 0, got {timeout_s!r}")
     deadline = time.monotonic() + timeout_s
     slot = store.add("rendezvous/arrived", 1) - 1  # atomic: each process its own slot, whatever the order
