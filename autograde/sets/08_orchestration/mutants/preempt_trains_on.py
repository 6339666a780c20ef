# replaces: run_preemptible
# wrong: saves when the signal comes but trains on to total_steps
# must-lose: preemption_finishes_step_and_saves
# must-keep: preemption_resumes_from_checkpoint
@@ -24,5 +24,5 @@
     try:
         state = torch.load(path, weights_only=True) if os.path.exists(path) else initial_state
-        while state["step"] < total_steps and not preempted.is_set():
+        while state["step"] < total_steps:
             state = train_step(state)
             if preempted.is_set() or state["step"] % save_every == 0 or state["step"] == total_steps:
