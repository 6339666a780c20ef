"""Every lesson and solution notebook as a learner meets it: opened in real JupyterLab, served by `./course lab`, in
headless Chromium; Run All; then no error output, no traceback, warning or distlab frame on stderr (lessons may show a
stuck rank's own frames there), every cell run, every plot rendered as an image, every widget rendered as a widget,
the kernel idle, within twice the 90 s budget (build/browser/<notebook>.json says how long it took).

    pytest tests/test_browser.py -k 02_sharding

Needs Chromium (`apt-get install chromium`; DISTLAB_CHROMIUM=/path picks another) and Playwright's Python package
(`pip install playwright`; only its driver is used, never a downloaded browser): `.ci/run` installs both. Without them
the test is skipped and nbval runs these notebooks instead (conftest.py): where it runs, it replaces nbval's run.
DISTLAB_REQUIRE_BROWSER=1 (as `.ci/run` sets) makes a missing Chromium or Playwright an error instead.

It leaves build/browser/<notebook>.png, a screenshot of each notebook after its Run All (CI keeps the folder), and
build/executed/<path>, each notebook that passed, with its outputs: `./course book` builds the static site from them
without running the lessons again.
"""
import hashlib
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from _chromium import launch, needs_chromium

from autograde import sets
from distlab.notebook_source import executed_copy

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "build" / "browser"
NOTEBOOKS = sorted(path for exercise_set in sets.exercise_sets()
                   for path in [exercise_set.lesson, *exercise_set.solutions.glob("*.ipynb")])
PAGE_TIMEOUT_S = 180  # loading JupyterLab, opening a notebook, starting its kernel (seconds on a loaded machine)
RUN_ALL_TIMEOUT_S = 840  # <= 90 s on 2 idle cores; under pytest-timeout's 900 s, so a late run leaves a screenshot
RUN_ALL_BUDGET_S = 90  # the course's budget for a lesson's Run All on 2 cores; failed at twice that (two run at once)
# What a learner must not see on stderr: a traceback (a demonstrated failure says what broke in one sentence, ranks'
# expected tracebacks stay hidden), a warning, distlab's own frames. (A stuck rank's stack, their own frames, may show.)
NOT_FOR_LEARNERS = re.compile(r"Traceback \(most recent call last\)|\w+Warning: |/distlab/")
TEST_SETTINGS = {  # this test's JupyterLab settings, on top of the learner's
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},  # every cell in the page, to be checked
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},  # never write the outputs into the repository
    "@jupyter-widgets/jupyterlab-manager/plugin": {"saveState": True},  # the executed copies keep the widgets' state
}
pytestmark = needs_chromium(instead="nbval runs the notebooks instead")

OPEN_AND_RUN_ALL = """async (path) => {
  const app = window.jupyterapp;
  const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
  await panel.context.ready;
  await panel.sessionContext.ready;
  window.distlabPanel = panel;
  window.distlabRun = null;
  app.commands.execute('notebook:run-all-cells').then(
    ok => { window.distlabRun = {ok}; }, error => { window.distlabRun = {ok: false, error: String(error)}; });
}"""

KERNEL_IDLE = "() => window.distlabPanel.sessionContext.session.kernel.status === 'idle'"
RUN_FINISHED = f"() => window.distlabRun !== null && ({KERNEL_IDLE})()"

# What the page shows, output by output: the model's outputs beside the element JupyterLab rendered for each.
REPORT = """() => {
  const panel = window.distlabPanel;
  const IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml'];
  const WIDGET = 'application/vnd.jupyter.widget-view+json';
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code').map((cell, index) => {
    const outputs = cell.model.outputs.toJSON();
    const area = cell.outputArea.node;
    const shown = [...area.querySelectorAll(':scope > .jp-OutputArea-child > .jp-OutputArea-output')];
    return {
      index,
      executed: cell.model.executionCount !== null || cell.model.sharedModel.getSource().trim() === '',
      errors: outputs.filter(o => o.output_type === 'error').map(o => `${o.ename}: ${o.evalue}`),
      stderr: outputs.filter(o => o.output_type === 'stream' && o.name === 'stderr').map(o => o.text).join(''),
      outputs: outputs.length, shown: shown.length,
      images: outputs.filter(o => IMAGES.some(m => m in (o.data || {}))).length,
      imagesShown: shown.filter(n => [...n.querySelectorAll('img')].some(i => i.complete && i.naturalWidth > 0)).length,
      widgets: outputs.filter(o => WIDGET in (o.data || {})).length,
      widgetsShown: shown.filter(n => n.querySelector('.jupyter-widgets')
                                      && !/Error displaying widget|Loading widget/.test(n.textContent)).length,
    };
  });
  const shown = [...panel.node.querySelectorAll('.jp-OutputArea-output')].filter(
    node => node.querySelector(':scope img, :scope .jupyter-widgets'));
  if (shown.length) shown[shown.length - 1].scrollIntoView({block: 'center'});  // the screenshot: the last plot/widget
  return cells;
}"""

# The notebook with its outputs, for build/executed/ (after the screenshot: the status bar then says "Saving started")
WITH_WIDGET_STATE = """() => {
  window.distlabPanel.context.saveState.emit('started');  // the widget manager writes the widgets' state in it now
  return window.distlabPanel.context.model.toJSON();
}"""

CLOSE = """async () => {
  const panel = window.distlabPanel;
  await panel.sessionContext.shutdown();
  panel.dispose();  // without saving: its outputs never reach the repository
}"""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, playwright_session):
    """`./course lab` (learner mode) and a Chromium page on it, while this pytest process runs notebooks: closed when
    it moves on to another test file (an idle lab and its page took 1.4 s of CPU a minute, for the rest of the run)."""
    tmp = tmp_path_factory.mktemp("lab")
    for name, values in TEST_SETTINGS.items():
        (tmp / "settings" / f"{name}.jupyterlab-settings").parent.mkdir(parents=True, exist_ok=True)
        (tmp / "settings" / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
    log = tmp / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(ROOT / "course"), "lab", "--no-browser", "--ServerApp.port=0",
             "--IdentityProvider.token=browser-test", "--LabApp.expose_app_in_browser=True",
             f"--LabApp.user_settings_dir={tmp / 'settings'}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
             f"--FileCheckpoints.checkpoint_dir={tmp / 'checkpoints'}"],  # nothing written beside the notebooks
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")})
    try:
        url, deadline = None, time.monotonic() + 120
        while url is None and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.5)
            found = re.search(r"http://127\.0\.0\.1:\d+", log.read_text())
            url = found.group(0) if found else None
        assert url, f"JupyterLab did not start:\n{log.read_text()[-2000:]}"
        browser = launch(playwright_session)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.set_default_timeout(PAGE_TIMEOUT_S * 1000)
            page.goto(f"{url}/lab?token=browser-test", wait_until="domcontentloaded")
            page.wait_for_function("() => window.jupyterapp !== undefined")
            page.evaluate("() => window.jupyterapp.restored")
            yield page
        finally:
            browser.close()
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass  # it had already exited (the assert above says why)
        server.wait(timeout=60)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_run_all_in_jupyterlab(notebook, lab):
    relative, before = notebook.relative_to(ROOT), _digest(notebook)
    executed = executed_copy(ROOT, notebook)  # where book/build.py reads it
    executed.unlink(missing_ok=True)  # a run that fails leaves no copy from before it for the book
    lab.evaluate(OPEN_AND_RUN_ALL, relative.as_posix())
    started = time.monotonic()
    try:
        lab.wait_for_function(RUN_FINISHED, timeout=RUN_ALL_TIMEOUT_S * 1000, polling=500)
        seconds = time.monotonic() - started
        cells = lab.evaluate(REPORT)
        lab.wait_for_function(KERNEL_IDLE, timeout=30_000)  # idle, not stuck busy (JupyterLab's own requests flicker)
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        lab.screenshot(path=SCREENSHOTS / f"{notebook.stem}.png")
        saved = lab.evaluate(WITH_WIDGET_STATE)
        lab.evaluate(CLOSE)
    assert _digest(notebook) == before, "JupyterLab wrote into the notebook"
    checked = {"run_all_seconds": round(seconds, 1), "cells": cells}  # what was checked, cell by cell
    (SCREENSHOTS / f"{notebook.stem}.json").write_text(json.dumps(checked, indent=1))
    errors = {c["index"]: c["errors"] for c in cells if c["errors"]}
    assert not errors, f"error output (code cell: errors): {errors}"
    noisy = {c["index"]: c["stderr"][:1000] for c in cells if NOT_FOR_LEARNERS.search(c["stderr"])}
    assert not noisy, f"stderr a learner should not see (code cell: stderr): {noisy}"
    not_run = [c["index"] for c in cells if not c["executed"]]
    assert not not_run, f"Run All did not run code cells {not_run}"
    assert all(c["outputs"] == c["shown"] for c in cells), "an output was not rendered"
    assert [c["imagesShown"] for c in cells] == [c["images"] for c in cells], "a plot was not rendered as an image"
    assert [c["widgetsShown"] for c in cells] == [c["widgets"] for c in cells], "a widget was not rendered as a widget"
    assert seconds <= 2 * RUN_ALL_BUDGET_S, f"Run All took {seconds:.0f} s; the budget: {RUN_ALL_BUDGET_S} s on 2 cores"
    executed.parent.mkdir(parents=True, exist_ok=True)
    for cell in saved["cells"]:
        if cell.get("attachments", {}) is None:
            del cell["attachments"]  # JupyterLab's null, which nbformat's schema does not allow
    nbformat.write(nbformat.from_dict(saved), executed)


def test_learners_see_no_instructor_tools_and_no_news(lab):
    """`./course lab` without --instructor: nbgrader's sidebar and menus are not loaded, nor Jupyter's news pop-up."""
    hidden = ["@jupyter/nbgrader:create-assignment", "@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:menu",
              "@jupyter/nbgrader:assignment-list", "@jupyterlab/apputils-extension:announcements"]
    loaded = lab.evaluate("ids => ids.filter(id => window.jupyterapp.hasPlugin(id))", hidden)
    assert loaded == []
    assert lab.evaluate("() => window.jupyterapp.hasPlugin('@jupyter-widgets/jupyterlab-manager:plugin')")
