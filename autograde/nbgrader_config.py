"""nbgrader configuration of the Distributed AI course (loaded by nbgrader when it runs with autograde/ as its cwd).

    solutions/<assignment>/*.ipynb    nbgrader's "source": solutions + visible checks + hidden tests (in the repo)
    exercises/<assignment>/*.ipynb    nbgrader's "release": the student notebooks (in the repo, committed)
    <work>/                           the course root: gradebook.db, submitted/, autograded/, feedback/, release/

The work folder is never in the repository's tracked tree: `autograde/work/` by default (git-ignored), or
$DISTLAB_GRADING_WORK. $DISTLAB_SOURCE_DIR and $DISTLAB_RELEASE_DIR move the source and release folders (the
grading command releases into the work folder, so that grading never rewrites exercises/; the tests use a copy).
Use `python -m autograde.grade` and `python -m autograde.release` rather than calling nbgrader directly: they set
these variables and put the environment's bin/ on PATH (nbgrader shells out to `alembic`).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

WORK = os.path.abspath(os.environ.get("DISTLAB_GRADING_WORK") or os.path.join(HERE, "work"))
SOURCE = os.path.abspath(os.environ.get("DISTLAB_SOURCE_DIR") or os.path.join(REPO, "solutions"))
RELEASE = os.path.abspath(os.environ.get("DISTLAB_RELEASE_DIR") or os.path.join(REPO, "exercises"))

# `autograde` is the installed package (`pip install -e .`). nbgrader runs in autograde/, so it must be this file's
# checkout, or another checkout's code would grade (a second worktree sharing one virtual environment). Any problem
# ends nbgrader here: traitlets logs an exception raised by a config file and goes on with nbgrader's defaults, its
# unsandboxed Execute included.
# SandboxedExecute (which imports torch, for the checks) is named, not imported: nbconvert imports it when an
# autograde run registers it, so nbgrader's other commands (generate_assignment, generate_feedback, export, db, the
# formgrader) start without torch's seconds of import.
try:
    import autograde
except ImportError as exc:
    sys.exit(f"nbgrader_config.py: {exc!r}: run `pip install -e .` in {REPO}")
if os.path.realpath(os.path.dirname(autograde.__file__)) != os.path.realpath(HERE):
    sys.exit(f"nbgrader_config.py: this is {HERE}, but `import autograde` gives {os.path.dirname(autograde.__file__)}: "
             f"run `pip install -e .` in {REPO}, or put {REPO} first on PYTHONPATH")
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput,  # noqa: E402
                                    SaveAutoGrades)

c = get_config()  # noqa: F821 - injected by traitlets when it loads this file

c.CourseDirectory.course_id = "distributed-ai"
c.CourseDirectory.root = WORK
c.CourseDirectory.source_directory = SOURCE  # absolute: os.path.join(root, SOURCE) is SOURCE
c.CourseDirectory.release_directory = RELEASE
c.CourseDirectory.submitted_directory = "submitted"  # relative to the work folder, as nbgrader expects
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(WORK, "gradebook.db")

# Autograding runs the student's code in a sandbox and decides each test cell with the trusted check of the same
# grade_id (autograde/sets/<assignment>/checks.py): SandboxedExecute takes the place of nbgrader's Execute; the rest of
# nbgrader's steps (scores into the gradebook, output limits, feedback) are its own. Time limits: SandboxedExecute's
# budget_s (per student) and cell_timeout_s (per cell of the notebook); grade.py sets them from its options.
c.Autograde.autograde_preprocessors = ["autograde.sandboxed_execute.SandboxedExecute", IgnorePattern,
                                       ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]

# What the student's notebook shows where a solution was (the source's "### BEGIN SOLUTION" block).
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Feedback pages (`nbgrader generate_feedback`, and formgrader's "generate feedback" button): a student's markdown is
# sanitised (autograde/feedback_html.py, templates/distlab_feedback), and so are outputs (nbconvert's sanitize_html):
# no student HTML or script runs in the page the instructor opens. The template is the feedback step's exporter's
# alone (a subclass's section overrides HTMLExporter's, which GenerateFeedback sets to nbgrader's 'feedback'):
# formgrader renders a submission with its own HTMLExporter and 'formgrade' template, which ours would replace
# (TemplateNotFound: an HTTP 500 on every submission page).
import nbgrader  # noqa: E402

from autograde.feedback_html import FeedbackExporter  # noqa: E402

c.GenerateFeedback.exporter_class = FeedbackExporter
c.FeedbackExporter.template_name = "distlab_feedback"  # nbgrader's "feedback" template, markdown sanitised
c.FeedbackExporter.template_file = "distlab_feedback.html.j2"  # not index.html.j2: it extends nbgrader's, of that name
c.FeedbackExporter.extra_template_basedirs = [
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"),
    os.path.join(HERE, "templates")]
c.FeedbackExporter.filters = {"clean_student_html": "autograde.feedback_html.clean",
                              "student_markdown": "autograde.feedback_html.student_markdown"}
c.HTMLExporter.sanitize_html = True  # every page: the feedback and formgrader's
# formgrader's own exporter: its 'formgrade' template renders markdown cells with markdown2html and no sanitising
c.HTMLExporter.filters = {"markdown2html": "autograde.feedback_html.markdown2html"}

# nbgrader's exchange (release_assignment, fetch_assignment, submit, collect; README: "Instructor's guide"): a folder
# every learner can write to, $DISTLAB_EXCHANGE, else autograde/work/exchange (one machine, one user: a dry run).
c.Exchange.root = os.path.abspath(os.environ.get("DISTLAB_EXCHANGE") or os.path.join(HERE, "work", "exchange"))
