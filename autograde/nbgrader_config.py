"""nbgrader configuration of the Distributed AI course (loaded by nbgrader when it runs with autograde/ as its cwd).

    solutions/<assignment>/*.ipynb    nbgrader's "source": solutions + visible checks + hidden tests (in the repo)
    exercises/<assignment>/*.ipynb    nbgrader's "release": the student notebooks (in the repo, committed)
    <work>/                           the course root: gradebook.db, submitted/, autograded/, feedback/, release/

The work folder is never in the repository's tracked tree: `autograde/work/` by default (git-ignored), or
$DISTLAB_GRADING_WORK. $DISTLAB_SOURCE_DIR and $DISTLAB_RELEASE_DIR move the source and release folders (the
grading command releases into the work folder, so that grading never rewrites exercises/; the tests use a copy).
Use `python autograde/grade.py` and `python autograde/release.py` rather than calling nbgrader directly: they set
these variables and put the environment's bin/ on PATH (nbgrader shells out to `alembic`).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

WORK = os.path.abspath(os.environ.get("DISTLAB_GRADING_WORK") or os.path.join(HERE, "work"))
SOURCE = os.path.abspath(os.environ.get("DISTLAB_SOURCE_DIR") or os.path.join(REPO, "solutions"))
RELEASE = os.path.abspath(os.environ.get("DISTLAB_RELEASE_DIR") or os.path.join(REPO, "exercises"))

c = get_config()  # noqa: F821 - injected by traitlets when it loads this file

c.CourseDirectory.course_id = "distributed-ai"
c.CourseDirectory.root = WORK
c.CourseDirectory.source_directory = SOURCE  # absolute: os.path.join(root, SOURCE) is SOURCE
c.CourseDirectory.release_directory = RELEASE
c.CourseDirectory.submitted_directory = "submitted"  # relative to the work folder, as nbgrader expects
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(WORK, "gradebook.db")

# One cell may launch ranks a few times; each launch has its own deadline (timeout=20 s, collective_timeout=5 s in
# the test cells), so a stuck submission fails there first. This is the backstop for code that hangs in the kernel.
c.Execute.timeout = 120
c.Execute.interrupt_on_timeout = True
c.Execute.raise_on_iopub_timeout = True

# What the student's notebook shows where a solution was (the source's "### BEGIN SOLUTION" block).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
