"""The course as a static site: every lesson executed, outputs and plots included, one HTML page each (nbconvert's
JupyterLab template) with a table of contents, links to the index, the previous and next lessons and the lesson's
exercise notebook (rendered as released: no solutions); an index with each lesson's summary, time and what its
exercises ask for; formulas rendered by a MathJax shipped with the site (the `jupyter-server-mathjax` package, from
PyPI), so no page needs the network; then every link in the site is checked.

    ./course book                      # -> build/book/index.html
    python book/build.py --out DIR

The lessons come from the last commit (`git show HEAD:lessons/...`) where there is one, so that the guesses a
learner saved in their copy never reach the site. A lesson is not run again when build/executed/ holds a fresh
executed copy of it: the one tests/test_browser.py saves after its Run All in JupyterLab, with the same code (in CI,
the test suite has just made them). Otherwise it is executed here, with nbconvert (nbclient), in lessons/ as a
learner would, and that copy is kept for the next build. Exit status 1 if a link in the site is broken (a page, a
file or an #anchor that does not exist).
"""
import argparse
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import jupyter_server_mathjax
import nbformat
from bs4 import BeautifulSoup
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from nbconvert.preprocessors import ExecutePreprocessor

from distlab.notebook_source import executed_copy

ROOT = Path(__file__).resolve().parents[1]
CELL_TIMEOUT_S = 300  # as nbval's --nbval-cell-timeout in pyproject.toml
MATHJAX = Path(jupyter_server_mathjax.__file__).parent / "static"  # MathJax 2.7, as nbconvert's template expects
MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
# The package ships the STIX-Web web fonts, not MathJax's TeX ones: without this, a glyph the TeX font data would
# describe (a prime, Ψ′) is a "Math Processing Error"
MATHJAX_FONTS = ("""<script type="text/x-mathjax-config">MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], """
                 """preferredFont: null, webFont: "STIX-Web", imageFont: null}});</script>""")
STYLE = """<style>
body.book { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5 }
nav.book-nav { display: flex; flex-wrap: wrap; gap: 1.5rem; padding: .6rem 1rem; margin: 0 0 1rem;
  background: #f3f5f8; border-radius: 6px; font: 14px system-ui, sans-serif }
nav.book-toc { font: 14px system-ui, sans-serif; margin: 0 0 1.5rem }
nav.book-toc ol { columns: 2 }
.book-lesson { border-top: 1px solid #dde; padding: .8rem 0 }
.book-lesson h2 { margin: 0 0 .3rem; font-size: 1.2rem }
.book-meta { color: #555; font-size: 14px }
</style>"""


def code_of(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def is_fresh(executed, lesson) -> bool:
    """Same code as the lesson, every code cell run, no error output."""
    cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    return (code_of(executed) == code_of(lesson)
            and all(cell.execution_count is not None or not cell.source.strip() for cell in cells)
            and not any(output.output_type == "error" for cell in cells for output in cell.outputs))


def committed(path: Path):
    """The notebook as the last commit has it (a learner's saved edits left out); the file itself where there is
    no commit to read (not a git checkout, or a file not committed yet)."""
    try:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{path.relative_to(ROOT).as_posix()}"],
                              capture_output=True, text=True, check=True, timeout=60).stdout
    except (OSError, ValueError, subprocess.SubprocessError):
        text = path.read_text()
    return nbformat.reads(text, as_version=4)


def executed_lesson(path: Path):
    """The committed lesson with its outputs: the browser test's fresh copy, or executed now (and kept)."""
    lesson = committed(path)
    copy = executed_copy(ROOT, path)
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


def summary_of(notebook) -> str:
    """The lesson's opening quote (its one-paragraph summary), as HTML; '' if it has none."""
    first = next((cell.source for cell in notebook.cells if cell.cell_type == "markdown"), "")
    quote = []
    for line in first.splitlines()[1:]:
        if line.startswith(">"):
            quote.append(line.lstrip("> ").rstrip())
        elif quote:
            break
    return markdown2html_mistune(" ".join(q for q in quote if q)) if quote else ""


def minutes_of(notebook) -> int:
    """The sum of the `~min` column of the lesson's table of sections (0 without one)."""
    first = next((cell.source for cell in notebook.cells if cell.cell_type == "markdown"), "")
    return sum(int(row.rsplit("|", 2)[1]) for row in first.splitlines()
               if re.fullmatch(r"\|.*\|\s*\d+\s*\|", row.strip()))


def graded_names_of(exercise) -> list[str]:
    """What the exercise set asks the learner to write: the bold code names of its opening cell."""
    first = next((cell.source for cell in exercise.cells if cell.cell_type == "markdown"), "")
    return list(dict.fromkeys(re.findall(r"\*\*`(\w+)`\*\*", first)))


def link_lessons_to_pages(page: str, lessons: set[str]) -> str:
    """A lesson's link to another lesson's notebook goes to that lesson's page."""
    for name in lessons:
        page = page.replace(f'href="{name}.ipynb', f'href="{name}.html')
    return page


def navigation(stems: list[str], titles: dict[str, str], index: int, exercise: str | None) -> str:
    links = ['<a href="index.html">Course index</a>']
    if index > 0:
        links.append(f'<a rel="prev" href="{stems[index - 1]}.html">← {html.escape(titles[stems[index - 1]])}</a>')
    if index < len(stems) - 1:
        links.append(f'<a rel="next" href="{stems[index + 1]}.html">{html.escape(titles[stems[index + 1]])} →</a>')
    if exercise:
        links.append(f'<a class="book-exercise" href="{exercise}">Exercises</a>')
    return f'<nav class="book-nav">{" ".join(links)}</nav>'


def finish_page(page: str, title: str, nav: str) -> str:
    """Navigation above and below, a table of contents from the ## headings, alt text on every figure; no script
    from the network (nbconvert's template loads require.js and the widget manager from CDNs: without them a
    widget shows its saved static output, which is all a page with no kernel can show)."""
    soup = BeautifulSoup(page, "html.parser")
    for script in soup.find_all("script"):
        if re.match(r"https?://", script.get("src", "")) or "https://unpkg.com/" in (script.string or ""):
            script.decompose()
    loader = soup.find("script", src=re.compile(r"MathJax\.js"))
    if loader is not None:
        loader.insert_before(BeautifulSoup(MATHJAX_FONTS, "html.parser"))
    soup.head.append(BeautifulSoup(STYLE, "html.parser"))
    main = soup.find("main") or soup.body
    sections = [h for h in main.find_all("h2") if h.get("id")]
    toc = "".join(f'<li><a href="#{h["id"]}">{html.escape(h.get_text(" ", strip=True).rstrip("¶"))}</a></li>'
                  for h in sections)
    main.insert(0, BeautifulSoup(nav + (f'<nav class="book-toc"><ol>{toc}</ol></nav>' if toc else ""),
                                 "html.parser"))
    main.append(BeautifulSoup(nav, "html.parser"))
    section, figure = title, 0
    for tag in main.find_all(["h2", "img"]):
        if tag.name == "h2":
            section = tag.get_text(" ", strip=True).rstrip("¶")
        elif not tag.get("alt"):
            figure += 1
            tag["alt"] = f"Figure {figure} of “{title}”, in “{section}”: a plot the code above it draws"
    return str(soup)


INDEX_MATHJAX = (MATHJAX_FONTS + r"""<script type="text/x-mathjax-config">MathJax.Hub.Config({tex2jax: """
                 r"""{inlineMath: [['$', '$'], ['\\(', '\\)']], processEscapes: true}, """
                 r"""messageStyle: 'none'});</script>"""
                 f'<script src="{MATHJAX_URL}"></script>')  # the lesson pages' settings (nbconvert's template)


def write_index(out: Path, entries: list[dict]) -> None:
    items = []
    for e in entries:
        builds = ", ".join(f"<code>{html.escape(n)}</code>" for n in e["builds"])
        meta = " · ".join(x for x in [f"about {e['minutes']} min" if e["minutes"] else "",
                                      f'<a href="{e["exercise"]}">exercises</a>: you write {builds}'
                                      if e["exercise"] else ""] if x)
        items.append(f'<section class="book-lesson"><h2><a href="{e["stem"]}.html">{html.escape(e["title"])}</a>'
                     f'</h2>{e["summary"]}<p class="book-meta">{meta}</p></section>')
    (out / "index.html").write_text(
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Distributed AI</title>{STYLE}'
        f"{INDEX_MATHJAX}</head>\n"
        '<body class="book"><h1>Distributed AI</h1>\n<p>How large models are trained and served across many '
        f"devices: {len(entries)} lessons, each run for real on several processes, every claim checked by a cell; "
        "each with an exercise set. These are the lessons as executed, outputs and plots included.</p>\n"
        + "\n".join(items) + "\n</body></html>\n")


def broken_links(out: Path) -> list[str]:
    """Every href and src in the site's pages that names a page, file or #anchor that does not exist."""
    pages = {page: BeautifulSoup(page.read_text(), "html.parser") for page in out.rglob("*.html")
             if "mathjax" not in page.relative_to(out).parts}
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


def course_lessons() -> list[Path]:
    """The lessons, in the course's order: those of the registry of exercise sets (autograde/sets), where a lesson
    notebook it does not list is an error (every lesson has its set: a site would link exercises that do not exist);
    in the student edition, which has no autograde/, every lessons/NN_*.ipynb by number."""
    notebooks = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
    try:
        from autograde import sets
    except ModuleNotFoundError:  # the student edition
        return notebooks
    listed = [exercise_set.lesson for exercise_set in sets.exercise_sets()]
    unlisted = [path.name for path in notebooks if path not in listed]
    if unlisted:
        raise SystemExit(f"book: lessons/{unlisted[0]} is no exercise set's lesson: add its autograde/sets/<name>/"
                         "set.toml (autograde/README.md, \"Adding an exercise set\")")
    return listed


def build(out: Path, lessons: list[Path] | None = None, executed=executed_lesson) -> int:
    """The site in `out` from `lessons` (default: `course_lessons()`), each executed by `executed(path)`; its exercise
    notebook is exercises/<stem>/*.ipynb (the same folder name as the lesson's file)."""
    out.mkdir(parents=True, exist_ok=True)
    lessons = lessons if lessons is not None else course_lessons()
    shutil.copytree(MATHJAX, out / "mathjax", dirs_exist_ok=True)
    exporter = HTMLExporter(template_name="lab", mathjax_url=MATHJAX_URL)
    exercise_exporter = HTMLExporter(template_name="lab", mathjax_url="../" + MATHJAX_URL)  # one folder down
    notebooks = {path.stem: executed(path) for path in lessons}
    stems, titles = list(notebooks), {stem: title_of(nb, stem) for stem, nb in notebooks.items()}
    entries = []
    for index, (path, stem) in enumerate(zip(lessons, stems)):
        exercise_path = next(iter(sorted((path.parent.parent / "exercises" / stem).glob("*.ipynb"))), None)
        exercise_nb = committed(exercise_path) if exercise_path else None  # as released: no solutions
        exercise = None
        if exercise_nb is not None:
            exercise = f"exercises/{stem}.html"
            page, _ = exercise_exporter.from_notebook_node(exercise_nb,
                                                  resources={"metadata": {"name": f"Exercises: {titles[stem]}"}})
            back = f'<nav class="book-nav"><a href="../index.html">Course index</a> <a href="../{stem}.html">' \
                   f'The lesson: {html.escape(titles[stem])}</a></nav>'
            (out / "exercises").mkdir(exist_ok=True)
            (out / exercise).write_text(finish_page(page, f"Exercises: {titles[stem]}", back))
        page, _ = exporter.from_notebook_node(notebooks[stem], resources={"metadata": {"name": titles[stem]}})
        page = finish_page(link_lessons_to_pages(page, set(stems)), titles[stem],
                           navigation(stems, titles, index, exercise))
        (out / f"{stem}.html").write_text(page)
        entries.append(dict(stem=stem, title=titles[stem], summary=summary_of(notebooks[stem]),
                            minutes=minutes_of(notebooks[stem]), exercise=exercise,
                            builds=graded_names_of(exercise_nb) if exercise_nb else []))
    scripts = ROOT / "lessons" / "scripts"
    if lessons and lessons[0].parent == scripts.parent:
        shutil.copytree(scripts, out / "scripts", dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    write_index(out, entries)
    broken = broken_links(out)
    for link in broken:
        print(f"book: warning: broken link in {link}", file=sys.stderr)
    print(f"book: {out / 'index.html'} ({len(lessons)} lessons, {len(broken)} broken links)", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "book", help="the site's folder")
    sys.exit(build(parser.parse_args().out))
