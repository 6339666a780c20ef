# replaces: rendezvous
# wrong: gives up after a quarter of timeout_s
# must-lose: rendezvous_deadline_names_missing
# must-keep: rendezvous_assigns_ranks, rendezvous_rejects_bad_arguments
@@ -8,5 +8,5 @@
     if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s < math.inf:
         raise ValueError(f"timeout_s must be a finite number of seconds > 0, got {timeout_s!r}")
-    deadline = time.monotonic() + timeout_s
+    deadline = time.monotonic() + timeout_s / 4
     slot = store.add("rendezvous/arrived", 1) - 1  # atomic: each process its own slot, whatever the order
     store.set(f"rendezvous/name/{slot}", name)
