"""nbgrader's Execute step, replaced: the student's cells run in a sandbox, the verdicts are decided here.

nbgrader keeps the bookkeeping (gradebook, autograded notebooks, feedback pages): nbgrader_config.py puts
`SandboxedExecute` where `Execute` was in `Autograde.autograde_preprocessors`. For each notebook it
1. runs the notebook's code cells, except the test cells, in one `autograde.sandbox.Submission` (bubblewrap);
2. runs, here in the grader, the trusted check `autograde/sets/<assignment>/checks.py::<grade_id>` of each test cell;
3. writes what happened as the cells' outputs: what a check printed, and an `error` output when it failed, which
   nbgrader's SaveAutoGrades then scores 0 (and full points otherwise).
Nothing the student's code does reaches this process but plain data, so patching torch, the test cells or IPython
in their notebook changes nothing here.
"""
from __future__ import annotations

import contextlib
import io
import time
import traceback

from nbformat.v4 import new_output

from autograde import sets
from autograde.sets._common import checks_of, rank_source
from autograde.limits import SandboxLimits
from autograde.sandbox import SandboxError, StudentError, Submission

try:
    from nbgrader.preprocessors import NbGraderPreprocessor
except ImportError:  # pragma: no cover - only nbgrader imports this module
    NbGraderPreprocessor = object


# One configurable trait per limit (sandbox, budget_s, ..., cpus), made from their one home, autograde/limits.py
_WithLimits = type("_WithLimits", (NbGraderPreprocessor,), SandboxLimits.traits())


class SandboxedExecute(_WithLimits):

    def preprocess(self, nb, resources):
        assignment = resources["nbgrader"]["assignment"]
        checks = checks_of(assignment)
        code = [cell for cell in nb.cells if cell.cell_type == "code" and _grade_id(cell) not in checks]
        started = time.monotonic()
        label = str(resources["nbgrader"].get("student") or "student")
        with submission(assignment, [cell.source for cell in code], sandbox=self.sandbox, budget_s=self.budget_s,
                        cell_timeout_s=self.cell_timeout_s, label=label, memory_bytes=self.memory_bytes,
                        tasks=self.tasks, cpus=self.cpus or None, call_timeout_s=self.call_timeout_s,
                        max_restarts=self.max_restarts) as student:
            verdicts = {}
            for grade_id, fn in checks.items():
                if any(_grade_id(cell) == grade_id for cell in nb.cells):
                    verdicts[grade_id] = run_check(fn, student)
            for cell, result in zip(code, student.cell_results or []):
                cell.outputs = _cell_outputs(result)
        for cell in nb.cells:
            if cell.cell_type == "code" and _grade_id(cell) in verdicts:
                cell.outputs = verdicts[_grade_id(cell)]
        cap_notebook_output(nb)
        self.log.info("graded %s in the sandbox in %.1f s", resources["nbgrader"].get("student"),
                      time.monotonic() - started)
        return nb, resources


def submission(assignment: str, cells: list[str], **limits) -> Submission:
    """The sandbox of one student's `cells` for `assignment`'s checks (grading and autograde/try_checks.py alike)."""
    return Submission(cells, rank_source(assignment), rank_filename=f"autograde/sets/{assignment}/ranks.py",
                      preload_dynamo=sets.get(assignment).ranks_import_dynamo, **limits)


def run_check(fn, student) -> list:
    """The outputs of one test cell: what the check printed, and an error output if it failed."""
    printed = io.StringIO()
    error = None
    student.begin_check()
    student.take_printed()  # nothing of an earlier check's (the cells' own output is in student.cell_results)
    try:
        with contextlib.redirect_stdout(printed):
            fn(student)
    except StudentError as exc:
        student_side = f"\n\nWhere, in your code (innermost last):\n{exc.traceback}" if exc.traceback else ""
        error = ("StudentError", f"{exc}", f"{exc}{student_side}")
    except SandboxError as exc:
        error = ("SandboxError", str(exc), str(exc))
    except AssertionError as exc:
        error = ("AssertionError", str(exc), f"AssertionError: {exc}")
    except Exception as exc:  # noqa: BLE001 - a check that broke is a failed check, with its reason
        error = (type(exc).__name__, str(exc), "".join(traceback.format_exception(exc))[-4000:])
    student_out, student_err = student.take_printed()
    if student_err.strip() and error is None:  # as nbgrader does: a check whose code wrote to stderr scores 0
        error = ("StderrOutput", "your code wrote to stderr during this check (a warning would go to stdout)",
                 f"your code wrote to stderr during this check:\n{student_err}")
    text = (f"{student_out}" if student_out else "") + printed.getvalue()
    outputs = [new_output("stream", name="stdout", text=text)] if text else []
    if error is not None:
        name, value, text = error
        outputs.append(new_output("error", ename=name, evalue=value[:4000], traceback=text.splitlines()))
    return outputs


NOTEBOOK_OUTPUT_CAP = 2**20  # characters of stream output kept in one graded notebook (each cell: sandbox.OUTPUT_CAP)


def cap_notebook_output(nb) -> None:
    """Cut the students' printed output once the notebook holds NOTEBOOK_OUTPUT_CAP characters (errors stay)."""
    room = NOTEBOOK_OUTPUT_CAP
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = output.get("text", "")
                output["text"] = text[:room] + ("\n[... output cut: the notebook printed too much]\n"
                                                if len(text) > room else "")
                room = max(room - len(text), 0)


def _cell_outputs(result: dict) -> list:
    outputs = [new_output("stream", name="stdout", text=result["output"])] if result.get("output") else []
    if result.get("stderr"):
        outputs.append(new_output("stream", name="stderr", text=result["stderr"]))
    if result.get("error"):
        error = result["error"]
        outputs.append(new_output("error", ename=str(error["type_names"][0]), evalue=str(error["message"]),
                                  traceback=str(error.get("traceback", "")).splitlines()))
    return outputs


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
