# replaces: rendezvous
# wrong: returns at once with the names that have arrived so far (never waits, never times out)
# must-lose: rendezvous_assigns_ranks, rendezvous_deadline_names_missing
# must-keep: rendezvous_rejects_bad_arguments
@@ -12,5 +12,6 @@
     store.set(f"rendezvous/name/{slot}", name)
     keys = [f"rendezvous/name/{i}" for i in range(world_size)]
-    while not store.check(keys):  # every slot's name is written: all have arrived
+    keys = [key for key in keys if store.check([key])]  # those here now
+    while not store.check(keys):
         if time.monotonic() >= deadline:
             arrived = [store.get(key).decode() for key in keys if store.check([key])]
