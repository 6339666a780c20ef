"""Running `./course` (a checkout's, or the student edition's) from a test without installing anything.

    env = course_env(tmp_path, root)      # DISTLAB_VENV: this environment behind a folder whose install stamp matches
    with running_lab(["./course", "lab", ...], root, env) as lab: lab.get("/api/status")
"""
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from distlab.launching.ports import free_port

LAB_START_TIMEOUT_S = 180  # JupyterLab's start on a loaded 2-core machine (formgrader's config imports torch)


def course_env(folder: Path, root: Path, **extra: str) -> dict:
    """The environment for `root`'s `./course`: this Python's virtual environment linked into `folder`, with the
    install stamp of `root`'s pyproject.toml, so that `./course setup` finds everything installed."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in os.listdir(sys.prefix):
        if not name.startswith(".distlab-installed-") and not (folder / name).exists():
            (folder / name).symlink_to(Path(sys.prefix) / name)
    with open(root / "pyproject.toml", "rb") as pyproject:
        cksum = subprocess.run(["cksum"], stdin=pyproject, capture_output=True, text=True, check=True)
    (folder / f".distlab-installed-{cksum.stdout.split()[0]}").touch()
    return {**os.environ, "DISTLAB_VENV": str(folder), **extra}


class Lab:
    """A JupyterLab server started by `running_lab`: `base` URL, `token`, requests with the token."""

    def __init__(self, base: str, token: str, process: subprocess.Popen):
        self.base, self.token, self.process = base, token, process

    def request(self, path: str, method: str = "GET", body=None):
        """(HTTP status, the body parsed as JSON where it is JSON, else its text)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode(errors="replace")
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text


@contextlib.contextmanager
def running_lab(command: list[str], cwd: Path, env: dict):
    """`command` (a `./course lab ...`) on a free port with a known token, until it answers; ended with its
    process group. Yields a `Lab`; its stderr (the server's log) is in `lab.log` afterwards."""
    port, token = free_port(), "course-test"
    log = tempfile.TemporaryFile("w+")
    process = subprocess.Popen([*command, "--no-browser", f"--port={port}", f"--IdentityProvider.token={token}"],
                               cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    lab = Lab(f"http://127.0.0.1:{port}", token, process)
    try:
        deadline = time.monotonic() + LAB_START_TIMEOUT_S
        while process.poll() is None:
            try:
                if lab.request("/api/status")[0] == 200:
                    break
            except OSError:  # not listening yet
                pass
            assert time.monotonic() < deadline, "JupyterLab did not answer in time"
            time.sleep(0.5)  # polling a server's start: there is no event to wait on
        assert process.poll() is None, f"JupyterLab exited {process.returncode}"
        yield lab
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.seek(0)
        lab.log = log.read()
        log.close()
