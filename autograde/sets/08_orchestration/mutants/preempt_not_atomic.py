# replaces: run_preemptible
# wrong: torch.save straight onto `path`: a kill during the save leaves a partial file
# must-lose: preemption_kill_keeps_last_checkpoint
# must-keep: preemption_finishes_step_and_saves, preemption_resumes_from_checkpoint
@@ -9,15 +9,5 @@

     def save(state):  # atomic: a temporary file in the same folder, fsynced, then renamed onto `path`
-        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
-        try:
-            with os.fdopen(fd, "wb") as f:
-                torch.save(state, f)
-                f.flush()
-                os.fsync(f.fileno())
-            os.replace(tmp, path)
-        except BaseException:
-            with contextlib.suppress(FileNotFoundError):
-                os.remove(tmp)
-            raise
+        torch.save(state, path)

     previous = signal.signal(signal.SIGTERM, on_sigterm)
