# replaces: run_preemptible
# wrong: saves and exits inside the signal handler: the step in progress never finishes
# must-lose: preemption_finishes_step_and_saves, preemption_kill_keeps_last_checkpoint
# must-keep: preemption_resumes_from_checkpoint
@@ -6,5 +6,6 @@

     def on_sigterm(signum, frame):
-        preempted.set()  # only a flag: the step in progress finishes, the save runs in the loop, not in the handler
+        save(current[0])
+        raise SystemExit(0)

     def save(state):  # atomic: a temporary file in the same folder, fsynced, then renamed onto `path`
@@ -21,4 +22,5 @@
             raise

+    current = [initial_state]
     previous = signal.signal(signal.SIGTERM, on_sigterm)
     try:
@@ -26,4 +28,5 @@
         while state["step"] < total_steps and not preempted.is_set():
             state = train_step(state)
+            current[0] = state
             if preempted.is_set() or state["step"] % save_every == 0 or state["step"] == total_steps:
                 save(state)
