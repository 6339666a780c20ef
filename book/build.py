"""The course as a static site: every lesson executed, outputs and plots included, one HTML page each (nbconvert's
JupyterLab template), an index, the scripts the lessons link to; then every link in the site is checked.

    ./course book                      # -> build/book/index.html
    python book/build.py --out DIR

A lesson is not run again when build/executed/ holds a fresh executed copy of it: the one tests/test_browser.py saves
after its Run All in JupyterLab, with the same code (in CI, the test suite has just made them). Otherwise it is
executed here, with nbconvert (nbclient), in lessons/ as a learner would, and that copy is kept for the next build.
Exit status 1 if a link in the site is broken (a page, a file or an #anchor that does not exist).
"""
import argparse
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
from bs4 import BeautifulSoup
from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExecutePreprocessor

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = ROOT / "build" / "executed"
CELL_TIMEOUT_S = 300  # as nbval's --nbval-cell-timeout in pyproject.toml


def code_of(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def is_fresh(executed, lesson) -> bool:
    """Same code as the lesson, every code cell run, no error output."""
    cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    return (code_of(executed) == code_of(lesson)
            and all(cell.execution_count is not None or not cell.source.strip() for cell in cells)
            and not any(output.output_type == "error" for cell in cells for output in cell.outputs))


def executed_lesson(path: Path):
    """The lesson with its outputs: the browser test's fresh copy, or executed now (and kept)."""
    lesson = nbformat.read(path, as_version=4)
    copy = EXECUTED / path.relative_to(ROOT)
    if copy.exists() and is_fresh(executed := nbformat.read(copy, as_version=4), lesson):
        print(f"book: {path.name}: the executed copy in {copy.parent.relative_to(ROOT)}/", file=sys.stderr)
        return executed
    print(f"book: {path.name}: executing it (no fresh executed copy)", file=sys.stderr)
    ExecutePreprocessor(timeout=CELL_TIMEOUT_S, kernel_name="python3").preprocess(
        lesson, {"metadata": {"path": str(path.parent)}})
    copy.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(lesson, copy)
    return lesson


def title_of(notebook, default: str) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.source.startswith("# "):
            return cell.source.splitlines()[0][2:].strip()
    return default


def link_lessons_to_pages(html: str, lessons: set[str]) -> str:
    """A lesson's link to another lesson's notebook goes to that lesson's page."""
    for name in lessons:
        html = html.replace(f'href="{name}.ipynb', f'href="{name}.html')
    return html


def write_index(out: Path, titles: dict[str, str]) -> None:
    items = "\n".join(f'<li><a href="{stem}.html">{title}</a></li>' for stem, title in titles.items())
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Distributed AI</title></head>\n"
        f"<body><h1>Distributed AI</h1>\n<p>The course's lessons, executed.</p>\n<ol>\n{items}\n</ol></body></html>\n")


def broken_links(out: Path) -> list[str]:
    """Every href and src in the site's pages that names a page, file or #anchor that does not exist."""
    pages = {page: BeautifulSoup(page.read_text(), "html.parser") for page in out.rglob("*.html")}
    ids = {page: {tag["id"] for tag in soup.find_all(id=True)} for page, soup in pages.items()}
    broken = []
    for page, soup in pages.items():
        for tag in soup.find_all(href=True) + soup.find_all(src=True):
            link = tag.get("href") or tag.get("src")
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("data:"):
                continue  # another site (not checked: no network here) or inline data
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            fragments = {parts.fragment, unquote(parts.fragment)}  # as a browser looks it up: as is, then decoded
            missing_anchor = parts.fragment and target.suffix == ".html" and not fragments & ids.get(target, set())
            if not target.exists() or missing_anchor:
                broken.append(f"{page.relative_to(out)}: {link}")
    return broken


def build(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    lessons = sorted((ROOT / "lessons").glob("0*.ipynb"))
    exporter, titles = HTMLExporter(template_name="lab"), {}
    for path in lessons:
        notebook = executed_lesson(path)
        titles[path.stem] = title_of(notebook, path.stem)
        html, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": titles[path.stem]}})
        (out / f"{path.stem}.html").write_text(link_lessons_to_pages(html, {p.stem for p in lessons}))
    shutil.copytree(ROOT / "lessons" / "scripts", out / "scripts", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    write_index(out, titles)
    broken = broken_links(out)
    for link in broken:
        print(f"book: warning: broken link in {link}", file=sys.stderr)
    print(f"book: {out / 'index.html'} ({len(lessons)} lessons, {len(broken)} broken links)", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "book", help="the site's folder")
    sys.exit(build(parser.parse_args().out))
