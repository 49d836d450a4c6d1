"""The parts of an HTML page the report tests check: section ids, images, links, scripts, style sheet links."""

from __future__ import annotations

from html.parser import HTMLParser


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self.scripts = 0
        self.stylesheets: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id", ""))
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "a":
            self.links.append(a.get("href", ""))
        elif tag == "script":
            self.scripts += 1
        elif tag == "link":
            self.stylesheets.append(a.get("href", ""))


def parse_page(html_text: str) -> _Page:
    page = _Page()
    page.feed(html_text)
    return page
