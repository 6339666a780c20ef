# replaces: run_preemptible
# wrong: leaves its SIGTERM handler installed after returning
# must-lose: preemption_finishes_step_and_saves, preemption_resumes_from_checkpoint
# must-keep: preemption_kill_keeps_last_checkpoint
@@ -30,3 +30,3 @@
         return int(state["step"])
     finally:
-        signal.signal(signal.SIGTERM, previous)
+        pass
