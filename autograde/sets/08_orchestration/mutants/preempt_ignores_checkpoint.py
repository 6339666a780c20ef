# replaces: run_preemptible
# wrong: always starts from initial_state, never from the checkpoint at `path`
# must-lose: preemption_resumes_from_checkpoint
# must-keep: preemption_finishes_step_and_saves, preemption_kill_keeps_last_checkpoint
@@ -23,5 +23,5 @@
     previous = signal.signal(signal.SIGTERM, on_sigterm)
     try:
-        state = torch.load(path, weights_only=True) if os.path.exists(path) else initial_state
+        state = initial_state
         while state["step"] < total_steps and not preempted.is_set():
             state = train_step(state)
