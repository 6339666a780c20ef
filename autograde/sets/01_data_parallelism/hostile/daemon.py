# attack: starts a daemon in its own session that should outlive grading
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)  # distlab-hostile-daemon"], start_new_session=True)
subprocess.Popen(["sh", "-c", "sleep 3600; echo distlab-hostile-daemon"], start_new_session=True)
