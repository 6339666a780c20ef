"""The static book in a real browser (Chromium, through Playwright's driver, as tests/test_browser.py): a site built
by book/build.py from two small executed lessons and an exercise notebook, opened from disk with no network —
navigation between the pages, formulas rendered by the MathJax the site ships (no raw `$`), every figure an image
with alt text, and an index that gives each lesson's summary, time and exercises.

    pytest tests/test_book_site.py
"""
import base64
import importlib.util
from pathlib import Path

import nbformat
import pytest
from _chromium import launch, needs_chromium
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from autograde import sets

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("book_build", ROOT / "book" / "build.py")
book = importlib.util.module_from_spec(spec)
spec.loader.exec_module(book)

pytestmark = needs_chromium()

# a 2 x 2 PNG, as matplotlib's inline backend puts a figure in a cell's output
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a73000000164944415478da63f8cfc0f09f8181e1"
    "3f030303c3ff0c0033ba05fbc1b1a8ce0000000049454e44ae426082")).decode()


def lesson(number: int, title: str) -> nbformat.NotebookNode:
    plot = new_code_cell("plt.plot(x)", execution_count=1,
                         outputs=[new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"})])
    return new_notebook(cells=[
        new_markdown_cell(f"# Lesson {number} — {title}\n\n> **Split the work over $N$ ranks, then check it.**\n\n"
                          "| # | section | you will | ~min |\n|---|---|---|---|\n"
                          "| 1 | A | do | 30 |\n| 2 | B | do | 15 |"),
        new_markdown_cell("## 1. The cost\n\nA ring moves $\\frac{2(N-1)}{N}S$ bytes per rank."), plot,
        new_markdown_cell("## 2. Measured\n\n$$t = \\alpha + \\beta S$$")])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    (root / "lessons").mkdir()
    paths = []
    for number, title in [(1, "Data parallelism"), (2, "Sharding")]:
        path = root / "lessons" / f"0{number}_topic.ipynb"
        nbformat.write(lesson(number, title), path)
        paths.append(path)
    (root / "exercises" / "01_topic").mkdir(parents=True)
    nbformat.write(new_notebook(cells=[new_markdown_cell("# Exercises\n\n1. **`ring_all_reduce`**: the ring;\n"
                                                         "2. **`average_gradients`**: $\\frac{1}{N}$ of the sum.")]),
                   root / "exercises" / "01_topic" / "topic.ipynb")
    out = root / "book"
    assert book.build(out, paths, executed=lambda path: nbformat.read(path, as_version=4)) == 0  # no broken link
    return out


@pytest.fixture(scope="module")
def page(playwright_session):
    browser = launch(playwright_session)
    try:
        yield browser.new_page()
    finally:
        browser.close()


def open_rendered(page, path: Path) -> int:
    """Open a page and wait until MathJax has typeset it; how many formulas it rendered."""
    page.goto(path.as_uri())
    page.wait_for_function("() => window.MathJax && MathJax.isReady && MathJax.Hub.queue.pending === 0",
                           timeout=60_000)
    return page.locator(".MathJax, .MathJax_Display").count()


def test_the_index_gives_each_lesson_its_summary_time_and_exercises(site, page):
    assert open_rendered(page, site / "index.html") == 2  # each summary's $N$
    sections = page.locator("section.book-lesson")
    assert sections.count() == 2
    first = sections.nth(0).inner_text()
    assert "Lesson 1 — Data parallelism" in first and "Split the work over" in first and "about 45 min" in first
    assert "ring_all_reduce" in first and "average_gradients" in first
    assert "exercises" not in sections.nth(1).inner_text()  # lesson 2 has no exercise notebook here
    assert "$" not in page.inner_text("body"), "a formula was left raw"


def test_a_lesson_page_links_to_the_index_its_neighbours_and_its_exercises(site, page):
    open_rendered(page, site / "01_topic.html")
    nav = page.locator("nav.book-nav").first
    assert nav.locator("a[rel=next]").get_attribute("href") == "02_topic.html"
    assert nav.locator("a[rel=prev]").count() == 0
    assert [a.inner_text() for a in page.locator("nav.book-toc a").all()] == ["1. The cost", "2. Measured"]
    nav.locator("a.book-exercise").click()
    open_rendered(page, Path(page.url.removeprefix("file://")))
    assert "Exercises" in page.title() and "ring_all_reduce" in page.inner_text("body")
    page.locator("nav.book-nav a", has_text="Course index").first.click()
    assert page.url.endswith("/index.html")
    open_rendered(page, site / "02_topic.html")
    assert page.locator("nav.book-nav").first.locator("a[rel=prev]").get_attribute("href") == "01_topic.html"


def test_formulas_are_rendered_without_the_network_and_every_figure_is_an_image_with_alt_text(site, page):
    assert open_rendered(page, site / "01_topic.html") >= 3  # $N$, the fraction, the display (and its frame)
    assert "$" not in page.inner_text("main"), "a formula was left raw"
    assert page.locator(".MathJax_Error, .merror").count() == 0
    assert page.evaluate("() => [...document.scripts].every(s => !s.src || s.src.startsWith('file:'))")
    images = page.locator("main img").all()
    assert images and all(img.get_attribute("alt") for img in images)
    assert all(img.evaluate("i => i.complete && i.naturalWidth > 0") for img in images)


BUILT = ROOT / "build" / "book"  # ./course book; .ci/run runs this test again once it has built the site


@pytest.mark.skipif(not (BUILT / "index.html").exists(), reason="no built site yet: ./course book makes it "
                    "(.ci/run builds it after the test suite, then runs this test)")
def test_the_course_site_as_built(page):
    """The real site: every lesson page reached from the index, its neighbours and exercises linked, its formulas
    rendered (no TeX left in the text, no MathJax error), its figures loaded images with alt text."""
    open_rendered(page, BUILT / "index.html")
    stems = [a.get_attribute("href").removesuffix(".html") for a in page.locator("section.book-lesson h2 a").all()]
    assert len(stems) == len(sets.exercise_sets()) > 0  # every lesson of the registry
    for index, stem in enumerate(stems):
        open_rendered(page, BUILT / f"{stem}.html")
        nav = page.locator("nav.book-nav").first
        if index + 1 < len(stems):
            assert nav.locator("a[rel=next]").get_attribute("href") == f"{stems[index + 1]}.html", stem
        exercise = nav.locator("a.book-exercise").get_attribute("href")
        assert (BUILT / exercise).exists(), stem
        text = page.locator(".jp-MarkdownCell").all_inner_texts()
        assert not [t for t in text if "\\frac" in t or "$$" in t], f"{stem}: TeX left unrendered"
        assert page.locator(".MathJax_Error, .merror").count() == 0, f"{stem}: a formula MathJax could not render"
        assert page.evaluate("() => [...document.scripts].every(s => !s.src || s.src.startsWith('file:'))"), stem
        images = page.locator(".jp-OutputArea-output img").all()
        assert all(img.get_attribute("alt") and img.evaluate("i => i.complete && i.naturalWidth > 0")
                   for img in images), f"{stem}: a figure without alt text, or not loaded"
