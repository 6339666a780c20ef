# replaces: run_preemptible
# wrong: copies the temporary file onto `path` and leaves it there
# must-lose: preemption_finishes_step_and_saves, preemption_resumes_from_checkpoint
@@ -15,8 +15,6 @@
                 f.flush()
                 os.fsync(f.fileno())
-            os.replace(tmp, path)
+            shutil.copyfile(tmp, path)
         except BaseException:
-            with contextlib.suppress(FileNotFoundError):
-                os.remove(tmp)
             raise

