# replaces: run_preemptible
# wrong: saves only when preempted or at the end: a kill loses every step
# must-lose: preemption_kill_keeps_last_checkpoint
# must-keep: preemption_finishes_step_and_saves, preemption_resumes_from_checkpoint
@@ -26,5 +26,5 @@
         while state["step"] < total_steps and not preempted.is_set():
             state = train_step(state)
-            if preempted.is_set() or state["step"] % save_every == 0 or state["step"] == total_steps:
+            if preempted.is_set() or state["step"] == total_steps:
                 save(state)
         return int(state["step"])
