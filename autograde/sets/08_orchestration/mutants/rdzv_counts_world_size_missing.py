# replaces: rendezvous
# wrong: says world_size are missing, not how many did not arrive
# must-lose: rendezvous_deadline_names_missing
# must-keep: rendezvous_assigns_ranks, rendezvous_rejects_bad_arguments
@@ -15,5 +15,5 @@
         if time.monotonic() >= deadline:
             arrived = [store.get(key).decode() for key in keys if store.check([key])]
-            raise TimeoutError(f"rendezvous: {world_size - len(arrived)} missing of {world_size} after "
+            raise TimeoutError(f"rendezvous: {world_size} missing of {world_size} after "
                                f"{timeout_s} s; arrived: {sorted(arrived)}")
         time.sleep(0.01)
