"""Sanitising a student's markdown for the feedback page the instructor opens (templates/distlab_feedback).

A markdown cell may hold raw HTML, and nbgrader's feedback template renders it as it is: `<script>` or
`<img onerror=...>` would run in the instructor's browser. `clean` keeps what markdown renders to (headings,
paragraphs, lists, tables, code, links, images by URL) and escapes everything else; no attribute can hold script.
"""
from __future__ import annotations

import bleach
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune

TAGS = {*bleach.ALLOWED_TAGS, "p", "br", "hr", "div", "span", "pre", "sup", "sub", "del", "h1", "h2", "h3", "h4",
        "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "img"}
ATTRIBUTES = {"*": ["class"], "a": ["href", "title"], "img": ["src", "alt", "title"], "th": ["align"],
              "td": ["align"]}


def clean(html: str) -> str:
    """`html` with every tag or attribute outside the lists above escaped or dropped (http, https, mailto links)."""
    return bleach.clean(str(html), tags=TAGS, attributes=ATTRIBUTES, protocols={"http", "https", "mailto"})


def markdown2html(source: str) -> str:
    """A student's markdown cell as HTML, cleaned: formgrader's submission page renders markdown cells with it
    (nbgrader_config.py: `HTMLExporter.filters`). nbgrader's 'formgrade' template renders them raw, and a `<script>`
    there would run in the instructor's browser, at the Jupyter server that serves formgrader, with its cookie."""
    return clean(markdown2html_mistune(source))


class FeedbackExporter(HTMLExporter):
    """The exporter of nbgrader's feedback step (nbgrader_config.py: `GenerateFeedback.exporter_class`), configured
    as `c.FeedbackExporter`: its template and filters reach the feedback pages only, not formgrader's own pages."""
