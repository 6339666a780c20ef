"""nbgrader's formgrader on a graded set, as `./course lab --instructor --work DIR` serves it: it finds the course's
nbgrader_config.py and the work folder, lists the assignment and the submission, opens the submission (no HTTP 500:
the feedback template is the feedback step's alone), and keeps a manual score and a comment typed into it in the
browser; no gradebook.db appears in the repository.

    pytest tests/test_formgrader.py

One student (the solution of 07_inference, the quickest set) is graded with the real command first (~50 s).
"""
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _chromium import CHROMIUM, launch
from _course import course_env, running_lab

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT, NOTEBOOK = "07_inference", "inference"
SAVE_TIMEOUT_S = 30  # the page's save request, on a loaded machine


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """nbgrader's work folder of one graded student, alice."""
    tmp = tmp_path_factory.mktemp("formgrader")
    (tmp / "submissions" / "alice").mkdir(parents=True)
    (tmp / "submissions" / "alice" / f"{NOTEBOOK}.ipynb").write_bytes(
        (ROOT / "solutions" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_bytes())
    run = subprocess.run([sys.executable, "-m", "autograde.grade", ASSIGNMENT, str(tmp / "submissions"),
                          "--out", str(tmp / "out"), "--work", str(tmp / "work")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return tmp / "work"


def stray_gradebooks() -> set:
    return {path for path in [ROOT / "gradebook.db", ROOT / "autograde" / "gradebook.db"] if path.exists()}


def headless_chromium(request):
    """A Chromium to drive, or None where there is none (or no Playwright): then the test makes the page's requests."""
    if CHROMIUM is None:
        return None
    try:
        return launch(request.getfixturevalue("playwright_session"))
    except pytest.skip.Exception:
        return None


def test_formgrader_lists_opens_and_keeps_manual_grades(graded, tmp_path, request):
    before = stray_gradebooks()
    env = course_env(tmp_path / "venv", ROOT, DISTLAB_EXCHANGE=str(tmp_path / "exchange"))
    with running_lab(["./course", "lab", "--instructor", "--work", str(graded)], ROOT, env) as lab:
        status, assignments = lab.request("/formgrader/api/assignments")
        assert status == 200 and [a["name"] for a in assignments] == [ASSIGNMENT]
        status, submitted = lab.request(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}")
        assert [s["student"] for s in submitted] == ["alice"] and submitted[0]["score"] == 34
        submission = submitted[0]["id"]
        status, page = lab.request(f"/formgrader/submissions/{submission}/")
        assert status == 200, page[-2000:]
        grades = lab.request(f"/formgrader/api/grades?submission_id={submission}")[1]
        comments = lab.request(f"/formgrader/api/comments?submission_id={submission}")[1]
        grade, comment = grades[0], comments[0]

        browser = headless_chromium(request)
        if browser is not None:  # in the page, as an instructor grades: type, then leave the field
            page = browser.new_page()
            page.goto(f"{lab.base}/api/status?token={lab.token}")  # logs in: a cookie for the page's own requests
            page.goto(f"{lab.base}/formgrader/submissions/{submission}/")
            page.wait_for_selector(f"input.score#{grade['name']}[placeholder]")  # the page has read the gradebook
            page.fill(f"input.score#{grade['name']}", "1.5")
            page.fill(f"textarea#{comment['name']}-comment", "see me")
            page.keyboard.press("Tab")  # a change: the page saves
            browser_saved = lambda: (lab.request(f"/formgrader/api/grade/{grade['id']}")[1]["manual_score"] == 1.5
                                     and lab.request(f"/formgrader/api/comment/{comment['id']}")[1]
                                     ["manual_comment"] == "see me")
            deadline = time.monotonic() + SAVE_TIMEOUT_S
            while not browser_saved():
                assert time.monotonic() < deadline, "formgrader's page did not save the manual score and comment"
                time.sleep(0.5)  # the page saves asynchronously: poll the gradebook
            browser.close()
        else:  # the same requests the page makes
            assert lab.request(f"/formgrader/api/grade/{grade['id']}", "PUT",
                               {"manual_score": 1.5, "extra_credit": 0})[0] == 200
            assert lab.request(f"/formgrader/api/comment/{comment['id']}", "PUT", {"manual_comment": "see me"})[0] == 200
        status, submitted = lab.request(f"/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{NOTEBOOK}")
        assert submitted[0]["score"] == 34 - grade["max_score"] + 1.5
    for complaint in ["No nbgrader_config.py", "Unwritable directory", "does not exist", "not a subdirectory"]:
        assert complaint not in lab.log, lab.log[-3000:]
    assert "Traceback" not in lab.log, lab.log[-3000:]
    assert stray_gradebooks() == before
