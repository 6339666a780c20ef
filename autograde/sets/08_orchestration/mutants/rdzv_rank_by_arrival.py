# replaces: rendezvous
# wrong: gives each process its order of arrival as its rank, not its place among the sorted names
# must-lose: rendezvous_assigns_ranks
# must-keep: rendezvous_deadline_names_missing, rendezvous_rejects_bad_arguments
@@ -19,3 +19,3 @@
         time.sleep(0.01)
     names = sorted(store.get(key).decode() for key in keys)
-    return names.index(name), names
+    return slot, names
