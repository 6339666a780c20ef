"""book/build.py's own rules, on small made-up inputs (CI builds the real site with `./course book` after the tests).

    pytest tests/test_book.py
"""
import importlib.util
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("book_build", ROOT / "book" / "build.py")
book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(book)


def test_every_broken_link_is_found_and_only_those(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "train.py").write_text("")
    (tmp_path / "a.html").write_text('<h2 id="top">A</h2><a href="#top">ok</a> <a href="b.html#part">ok</a> '
                                     '<a href="scripts/train.py">ok</a> <a href="https://pytorch.org/x">not checked</a> '
                                     '<img src="data:image/png;base64,AAAA"> <a href="#nowhere">broken</a> '
                                     '<a href="c.html">broken</a> <a href="b.html#gone">broken</a>')
    (tmp_path / "b.html").write_text('<p id="part">B</p><img src="plot.png">')
    assert sorted(book.broken_links(tmp_path)) == ["a.html: #nowhere", "a.html: b.html#gone", "a.html: c.html",
                                                    "b.html: plot.png"]


def test_an_executed_copy_is_used_only_when_it_ran_the_lessons_code_without_error():
    lesson = new_notebook(cells=[new_markdown_cell("# Lesson"), new_code_cell("x = 1"), new_code_cell("")])
    executed = nbformat.from_dict(nbformat.v4.new_notebook(cells=[c.copy() for c in lesson.cells]))
    executed.cells[1].execution_count = 1
    assert book.is_fresh(executed, lesson)
    lesson.cells[1].source = "x = 2"
    assert not book.is_fresh(executed, lesson), "the lesson's code changed since"
    lesson.cells[1].source = "x = 1"
    executed.cells[1].outputs = [new_output("error", ename="NameError", evalue="y", traceback=[])]
    assert not book.is_fresh(executed, lesson), "it failed"
    executed.cells[1].outputs, executed.cells[1].execution_count = [], None
    assert not book.is_fresh(executed, lesson), "it did not run"
