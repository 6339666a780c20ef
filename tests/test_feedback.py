"""Grading, round 2: feedback pages run none of the student's HTML; honest answers in tuple or dict subclasses score;
random cases are named without the secret seed.

    pytest tests/test_feedback.py
"""
from __future__ import annotations

import collections
import csv
import fractions
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from autograde import grade as grade_module
from autograde import notebooks
from autograde.feedback_html import clean
from autograde.protocol import plain
from distlab import notebook_source

REPO = Path(__file__).resolve().parents[1]

ASSIGNMENT = "07_inference"
(SOURCE,) = notebooks.assignment_notebooks(ASSIGNMENT)
RELEASED = notebooks.EXERCISES / ASSIGNMENT / SOURCE.name
HOSTILE_MARKDOWN = ("# My notes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert('pwned')</script>\n"
                    "<img src=x onerror=alert('pwned')>\n<a href=\"javascript:alert('pwned')\">link</a>\n")
NAMEDTUPLES = '''
from collections import OrderedDict, namedtuple
_Heads = namedtuple("Heads", "query kv")
_best_config, _shard_heads = best_config, shard_heads
def best_config(*args, **kwargs):
    found = _best_config(*args, **kwargs)
    return None if found is None else OrderedDict(found)
def shard_heads(*args, **kwargs):
    return _Heads(*_shard_heads(*args, **kwargs))
'''


RAISING = '''
def layers_times_two(n_layers):
    return 2 * n_layers / 0  # a learner's mistake, one frame below the graded function


def kv_cache_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem=2):
    return int(layers_times_two(n_layers) * n_kv_heads * head_dim * bytes_per_elem)
'''


def test_clean_escapes_script_and_event_handlers_and_keeps_markdown():
    html = clean("<h1>t</h1><table><tr><th>a</th></tr></table><script>alert(1)</script>"
                 "<img src='x.png' onerror='alert(2)'><a href='javascript:alert(3)'>l</a>")
    assert "<script>" not in html and "onerror" not in html and "javascript:" not in html
    assert "<h1>t</h1>" in html and "<th>a</th>" in html and '<img src="x.png">' in html


def test_tuple_list_and_dict_subclasses_arrive_as_plain_data(tmp_path):
    Point = collections.namedtuple("Point", "x y")
    value = plain({"p": Point(1, [2, 3]), "d": collections.OrderedDict(a=torch.ones(2))})
    assert type(value["p"]) is tuple and value["p"] == (1, [2, 3]) and type(value["d"]) is dict
    torch.save(value, tmp_path / "reply.pt")
    assert torch.load(tmp_path / "reply.pt", weights_only=True)["p"] == (1, [2, 3])  # what the grader accepts


def test_a_fraction_arrives_as_a_float():
    """Issue 32: a Fraction from bubble_fraction passed the learner's checks and failed the grader's."""
    value = plain({"bubble": fractions.Fraction(3, 8), "many": [fractions.Fraction(1, 3)]})
    assert value == {"bubble": 0.375, "many": [1 / 3]} and type(value["bubble"]) is float


def test_random_cases_are_named_by_number_not_by_the_secret_seed():
    code = ("from autograde.sets._common import checks_of, GRADING_SEED; import importlib; "
            "m = importlib.import_module('autograde.sets.05_pipeline.checks'); "
            "names = [n for n, _ in m.fed_schedules()]; "
            "print(all(str(GRADING_SEED) not in n and str(GRADING_SEED + 1) not in n for n in names), len(set(names)) "
            "== len(names))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "DISTLAB_GRADING_SEED": "987654321"})
    assert result.stdout.split() == ["True", "True"], result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="grading needs bubblewrap")
def test_a_class_with_hostile_markdown_and_namedtuple_answers(tmp_path):
    """Graded by the real command: the hostile markdown runs nothing in the feedback page (its table still renders),
    and the student whose honest answers come as a namedtuple and an OrderedDict scores full marks."""
    markdown = notebooks.make_submission(RELEASED, SOURCE)
    markdown["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": HOSTILE_MARKDOWN})
    tuples = notebooks.make_submission(RELEASED, SOURCE)
    last = max(i for i, c in enumerate(tuples["cells"]) if notebook_source.nbgrader_metadata(c).get("solution"))
    tuples["cells"].insert(last + 1, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                      "source": NAMEDTUPLES})
    subs = tmp_path / "subs"
    raising = notebooks.make_submission(RELEASED, SOURCE, {"kv_cache_bytes_per_token": RAISING})
    notebook_source.write_notebook(markdown, subs / "x-html-markdown" / SOURCE.name)
    notebook_source.write_notebook(tuples, subs / "y-namedtuples" / SOURCE.name)
    notebook_source.write_notebook(raising, subs / "z-raises" / SOURCE.name)
    grade_module.grade(ASSIGNMENT, subs, tmp_path / "out", tmp_path / "work", jobs=1,
                       limits={"budget_s": 120.0, "cell_timeout_s": 30.0})
    with open(tmp_path / "out" / "grades.csv") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    raised = rows.pop("z-raises")
    assert raised["status"] == "graded" and raised["score"] != raised["max_score"], raised
    assert all(r["status"] == "graded" and r["score"] == r["max_score"] for r in rows.values()), rows
    # feedback a learner can act on: each test cell named in the contents, only the learner's own frames shown
    page = (tmp_path / "out" / "feedback" / "z-raises" / f"{SOURCE.stem}.html").read_text()
    assert "<code>kv_cache_bytes_published_models</code></a>" in page and ">Test cell<" not in page
    where = page[page.index("Where, in your code"):][:3000]
    assert "ipython-input" in where and "layers_times_two" in where, where
    assert not re.search(r"autograde|_ranks\.py|worker\.py|site-packages", where), where
    page = (tmp_path / "out" / "feedback" / "x-html-markdown" / f"{SOURCE.stem}.html").read_text()
    assert "My notes" in page and "<td>2</td>" in page  # the student's markdown is there, rendered
    assert "<script>alert('pwned')" not in page  # dropped with its content (nh3), or escaped
    tags = re.findall(r"<[a-zA-Z][^>]*>", page)  # the page's real tags: none of the student's runs anything
    assert not [t for t in tags if "pwned" in t or re.search(r"\son\w+\s*=", t) or "javascript:" in t], tags
