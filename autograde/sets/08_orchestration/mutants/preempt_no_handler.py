# replaces: run_preemptible
# wrong: installs no SIGTERM handler: the signal kills it, and the steps since the last checkpoint are lost
# must-lose: preemption_finishes_step_and_saves
# must-keep: preemption_resumes_from_checkpoint, preemption_kill_keeps_last_checkpoint
@@ -21,5 +21,5 @@
             raise

-    previous = signal.signal(signal.SIGTERM, on_sigterm)
+    previous = signal.getsignal(signal.SIGTERM)
     try:
         state = torch.load(path, weights_only=True) if os.path.exists(path) else initial_state
