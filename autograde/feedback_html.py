"""Sanitising a student's markdown for the feedback page the instructor opens (templates/distlab_feedback).

A markdown cell may hold raw HTML, and nbgrader's feedback template renders it as it is: `<script>` or
`<img onerror=...>` would run in the instructor's browser. `clean` keeps what markdown renders to (headings,
paragraphs, lists, tables, code, links, images by URL) and drops everything else (a `<script>` with its content); no
attribute can hold script. It is nh3 (the Rust ammonia sanitizer, linear time): bleach's html5lib tree building is
quadratic in nesting, 340 s for one cell of 60,000 nested `<div>` (issue 45.6).

Markdown itself is bounded too (`student_markdown`): nbconvert's renderer is quadratic in repeated `\\begin{...}`
(1.8 s for 18,000 characters, measured with markdown2html_mistune), so a page renders at most MARKDOWN_CELL_CAP
characters of a cell and MARKDOWN_NOTEBOOK_CAP of a notebook, within PAGE_RENDER_S; past a cap, or past the time, the
rest is shown as escaped plain text, and the page says so. `fallback_page` is the page of a notebook whose page was not
made in time at all: its test cells' scores and outputs, escaped.
"""
from __future__ import annotations

import html
import time

import nh3
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

TAGS = {"a", "abbr", "acronym", "b", "blockquote", "code", "em", "i", "li", "ol", "strong", "ul", "p", "br", "hr",
        "div", "span", "pre", "sup", "sub", "del", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody",
        "tr", "th", "td", "img"}
ATTRIBUTES = {"*": {"class"}, "a": {"href", "title"}, "img": {"src", "alt", "title"}, "th": {"align"},
              "td": {"align"}}
MARKDOWN_CELL_CAP = 10_000  # characters of one markdown cell rendered (the released notebooks' longest: 4,186)
MARKDOWN_NOTEBOOK_CAP = 100_000  # characters of markdown rendered in one page (the released notebooks': <= 15,155)
PAGE_RENDER_S = 20.0  # seconds of markdown rendering per page; past it, the rest is plain text


def clean(text: str) -> str:
    """`text` (HTML) with every tag or attribute outside the lists above dropped (http, https, mailto links)."""
    return nh3.clean(str(text), tags=TAGS, attributes=ATTRIBUTES, url_schemes={"http", "https", "mailto"},
                     link_rel=None)


class _Page:
    """What is left of one page's markdown allowance."""

    def __init__(self, nb):
        self.nb = nb  # held, so that id(nb) is not reused by another notebook while this one is the key
        self.characters = MARKDOWN_NOTEBOOK_CAP
        self.until = time.monotonic() + PAGE_RENDER_S


_pages: dict[int, _Page] = {}


def student_markdown(source, nb) -> dict:
    """How the template shows one markdown cell of `nb`: {"text", "render": markdown or escaped text, "note"}."""
    page = _pages.get(id(nb))
    if page is None or page.nb is not nb:
        _pages.clear()  # one page is rendered at a time
        page = _pages[id(nb)] = _Page(nb)
    text = str(source)
    if time.monotonic() > page.until:
        return {"text": text[:MARKDOWN_CELL_CAP], "render": False,
                "note": f"[markdown shown as plain text: this page took more than {PAGE_RENDER_S:g} s to render]"}
    if page.characters <= 0:
        return {"text": text[:MARKDOWN_CELL_CAP], "render": False,
                "note": f"[markdown shown as plain text: the notebook's markdown passed {MARKDOWN_NOTEBOOK_CAP:,} "
                        f"characters]"}
    note = ""
    if len(text) > MARKDOWN_CELL_CAP:
        text, note = text[:MARKDOWN_CELL_CAP], (f"[this cell's markdown is cut at {MARKDOWN_CELL_CAP:,} characters "
                                                 f"of {len(str(source)):,}]")
    page.characters -= len(text)
    return {"text": text, "render": True, "note": note}


def fallback_page(nb, title: str, reason: str, scores: dict) -> str:
    """A feedback page made without nbconvert: each test cell's score (`scores`: {grade_id: score}) and outputs, as
    escaped text."""
    rows = []
    for cell in nb.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") != "code" or not meta.get("grade") or meta.get("solution"):
            continue
        outputs = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                outputs.append(str(output.get("text", "")))
            elif output.get("output_type") == "error":
                outputs.append("\n".join(map(str, output.get("traceback", []))) or str(output.get("evalue", "")))
        score = scores.get(meta.get("grade_id"))
        shown = html.escape("".join(outputs)[:20_000])
        rows.append(f"<h3><code>{html.escape(str(meta.get('grade_id')))}</code> (Score: {html.escape(str(score))} / "
                    f"{html.escape(str(meta.get('points')))})</h3>\n<pre>{shown}</pre>")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head><body>\n"
            f"<h1>{html.escape(title)}</h1>\n<p>{html.escape(reason)}</p>\n" + "\n".join(rows) + "\n</body></html>\n")


def markdown2html(source: str) -> str:
    """A student's markdown cell as HTML, cleaned and cut at MARKDOWN_CELL_CAP characters: formgrader's submission
    page renders markdown cells with it (nbgrader_config.py: `HTMLExporter.filters`). nbgrader's 'formgrade' template
    renders them raw, and a `<script>` there would run in the instructor's browser, at the Jupyter server that serves
    formgrader, with its cookie."""
    return clean(markdown2html_mistune(str(source)[:MARKDOWN_CELL_CAP]))


class FeedbackExporter(HTMLExporter):
    """The exporter of nbgrader's feedback step (nbgrader_config.py: `GenerateFeedback.exporter_class`), configured
    as `c.FeedbackExporter`: its template and filters reach the feedback pages only, not formgrader's own pages."""
