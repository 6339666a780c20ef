"""The instructor's guide in autograde/README.md, run as written: each of its command blocks, in order, by bash.

    pytest tests/test_instructor_guide.py

The term of one student (this login) and one set (07_inference, the quickest to grade): the student edition out;
the set released through nbgrader's exchange, fetched, self-checked (`./course test`, as released: it fails) and
submitted from the edition with the solution filled in and a markdown cell holding script; collected; graded with
the real command (full marks); then `./course lab --instructor --work ...`: formgrader finds the config and the work
folder, lists the assignment and the submission, opens the submission's page (not HTTP 500) with the student's
markdown inert (nbgrader's own template renders it raw: a script there would run in the instructor's browser), and
a manual score and a comment typed into that page in headless Chromium reach the gradebook; no nbgrader warning, no
gradebook.db left in the repository; then nbgrader's feedback again, which shows the comment. `EXCHANGE` and `CLASS`
are this test's temporary folders.
"""
import getpass
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _chromium import CHROMIUM, launch
from _course import course_env, running_lab

from distlab import notebook_source

ROOT = Path(__file__).resolve().parents[1]
GUIDE_HEADING = "## Instructor's guide: a whole term"
CHOICES = "export EXCHANGE=/srv/nbgrader/exchange CLASS=$HOME/distributed-ai-class"
ASSIGNMENT, NOTEBOOK = "07_inference", "inference"
# The set's points, from its source notebook (the solution scores them all): not a number to update by hand
SOURCE = ROOT / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
MAX_SCORE = sum(notebook_source.nbgrader_metadata(cell).get("points", 0)
                for cell in notebook_source.read_notebook(SOURCE)["cells"])
COMMAND_TIMEOUT_S = 600  # a block; grading one student takes ~50 s on a loaded 2-core machine
HOSTILE_MARKDOWN = 'My notes <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>'
SAVE_TIMEOUT_S = 60  # formgrader's page saving a score, on a loaded machine


def guide_blocks() -> list[str]:
    """The bash blocks of the README's guide, in order."""
    readme = (ROOT / "autograde" / "README.md").read_text()
    start = readme.index(GUIDE_HEADING)
    section = readme[start:readme.index("\n## ", start + 1)]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def run_block(block: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_S)


def expect_ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, \
        f"{done.args[-1]}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    return done


def headless_chromium(request):
    """A Chromium to drive, or None where there is none (or no Playwright): then the test makes the page's requests."""
    if CHROMIUM is None:
        return None
    try:
        return launch(request.getfixturevalue("playwright_session"))
    except pytest.skip.Exception:
        return None


def stray_gradebooks() -> set:
    return {path for path in [ROOT / "gradebook.db", ROOT / "autograde" / "gradebook.db"] if path.exists()}


def test_the_guide_s_term_runs_as_written(tmp_path, request):
    if not (ROOT / ".venv" / "bin" / "python").exists():
        pytest.skip("the guide's commands use the checkout's .venv: ./course setup makes it")
    blocks = guide_blocks()
    assert len(blocks) == 8, blocks
    choices, edition_out, release, student, collect, grade, lab, feedback = blocks
    assert choices.strip() == CHOICES
    before = stray_gradebooks()
    exchange, klass = tmp_path / "exchange", tmp_path / "class"
    env = course_env(tmp_path / "venv", ROOT, EXCHANGE=str(exchange), CLASS=str(klass))

    expect_ok(run_block(edition_out, ROOT, env))
    edition = klass / "student-edition"
    assert (edition / "course").exists() and not (edition / "solutions").exists()
    expect_ok(run_block(release, ROOT, env))

    fetch, check, submit = [line for line in student.splitlines() if line.strip()]
    student_env = {**course_env(tmp_path / "student-venv", edition), "EXCHANGE": str(exchange),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                   "PYTHONPATH": str(edition / "src")}
    expect_ok(run_block(fetch, edition, student_env))
    fetched = edition / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    checked = run_block(check, edition, student_env)  # as released: the self-checks fail, and say so
    assert checked.returncode == 1 and "NotImplementedError" in checked.stdout, checked.stdout[-3000:]
    work = notebook_source.read_notebook(SOURCE)  # the student's work, and
    work["cells"].insert(1, {"cell_type": "markdown", "id": "hostile", "metadata": {}, "source": HOSTILE_MARKDOWN})
    notebook_source.write_notebook(work, fetched)  # markdown that would run script in the instructor's browser
    expect_ok(run_block(submit, edition, student_env))

    expect_ok(run_block(collect, ROOT, env))
    student_id = getpass.getuser()
    assert (klass / ASSIGNMENT / "submitted" / student_id / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists()
    expect_ok(run_block(grade, ROOT, env))
    rows = (klass / "grades" / ASSIGNMENT / "grades.csv").read_text().splitlines()
    assert rows[1].startswith(f"{student_id},graded,{MAX_SCORE:g}"), rows

    command = [re.sub(r"\$(\w+)", lambda name: env[name[1]], word) for word in shlex.split(lab.strip())]
    with running_lab(command, ROOT, {**env, "DISTLAB_EXCHANGE": str(exchange)}) as served:
        status, assignments = served.request("/formgrader/api/assignments")
        assert status == 200 and [a["name"] for a in assignments] == [ASSIGNMENT]
        submitted = served.request(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}")[1]
        assert [s["student"] for s in submitted] == [student_id] and submitted[0]["score"] == MAX_SCORE
        submission = submitted[0]["id"]
        status, page = served.request(f"/formgrader/submissions/{submission}/")
        assert status == 200, page[-2000:]
        # shown, inert: the note is there; nh3 drops the attribute and the script with its content
        assert "My notes" in page and "onerror" not in page and "window.pwned" not in page, page[-3000:]
        grade_row = served.request(f"/formgrader/api/grades?submission_id={submission}")[1][0]
        comment_row = served.request(f"/formgrader/api/comments?submission_id={submission}")[1][0]
        grade_url = f"/formgrader/api/grade/{grade_row['id']}"
        comment_url = f"/formgrader/api/comment/{comment_row['id']}"
        browser = headless_chromium(request)
        if browser is not None:  # as an instructor grades: type into the page, then leave the field
            tab = browser.new_page()
            tab.goto(f"{served.base}/api/status?token={served.token}")  # logs in: a cookie for the page's requests
            tab.goto(f"{served.base}/formgrader/submissions/{submission}/")
            tab.wait_for_selector(f"input.score#{grade_row['name']}[placeholder]")  # the page has read the gradebook
            tab.fill(f"input.score#{grade_row['name']}", "1.5")
            tab.fill(f"textarea#{comment_row['name']}-comment", "see me")
            tab.keyboard.press("Tab")  # a change: the page saves
            deadline = time.monotonic() + SAVE_TIMEOUT_S
            while not (served.request(grade_url)[1]["manual_score"] == 1.5
                       and served.request(comment_url)[1]["manual_comment"] == "see me"):
                assert time.monotonic() < deadline, "formgrader's page did not save the manual score and comment"
                time.sleep(0.5)  # the page saves asynchronously: poll the gradebook
            browser.close()
        else:  # the requests the page makes
            assert served.request(grade_url, "PUT", {"manual_score": 1.5, "extra_credit": 0})[0] == 200
            assert served.request(comment_url, "PUT", {"manual_comment": "see me"})[0] == 200
        submitted = served.request(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}")[1]
        assert submitted[0]["score"] == MAX_SCORE - grade_row["max_score"] + 1.5
    for complaint in ["No nbgrader_config.py", "Unwritable directory", "does not exist", "not a subdirectory",
                      "Traceback"]:
        assert complaint not in served.log, served.log[-3000:]
    assert stray_gradebooks() == before

    expect_ok(run_block(feedback, ROOT, env))
    page = klass / "work" / ASSIGNMENT / "feedback" / student_id / ASSIGNMENT / f"{NOTEBOOK}.html"
    assert "see me" in page.read_text()
