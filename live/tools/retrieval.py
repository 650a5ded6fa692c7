"""web_search and web_fetch over an offline document corpus (tasks/_corpus/).

Retrieval tasks must run with no network (DESIGN.md), so the "web" is a folder of markdown or
text documents served by the harness, not by the sandbox. Each document is one file whose first
line is its title (``# Title`` or plain text) and which names its address on a ``url: ...``
line near the top (otherwise ``corpus://<relative path>``). Search is real ranking: Okapi BM25
over title and body, the title weighted double, with a snippet cut around the query terms.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agbench.task import suite_root

from .base import BaseTool, ToolResult, truncate

if TYPE_CHECKING:
    from agbench.live.sandbox import Sandbox

DOC_SUFFIXES = (".md", ".txt", ".markdown")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
    ]
)
_URL_LINE = re.compile(r"^\s*(?:url|source)\s*:\s*(\S+)\s*$", re.IGNORECASE)
K1 = 1.5
B = 0.75
TITLE_WEIGHT = 2


def tokenize(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOPWORDS]


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    body: str
    path: Path


def parse_document(path: Path, root: Path) -> Document:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    title = ""
    url = ""
    body_start = 0
    for i, line in enumerate(lines[:8]):
        m = _URL_LINE.match(line)
        if m and not url:
            url = m.group(1)
            body_start = max(body_start, i + 1)
        elif not title and line.strip():
            title = line.strip().lstrip("#").strip()
            body_start = max(body_start, i + 1)
    if not url:
        url = "corpus://" + path.relative_to(root).with_suffix("").as_posix()
    body = "\n".join(lines[body_start:]).strip()
    return Document(url=url, title=title or path.stem, body=body, path=path)


def _normalise_url(url: str) -> str:
    u = url.strip().strip("<>\"'")
    u = re.sub(r"^[a-z]+://", "", u, flags=re.IGNORECASE)
    u = u.removeprefix("www.")
    return u.rstrip("/").lower()


@dataclass
class CorpusIndex:
    """BM25 index over every document under ``root``."""

    root: Path
    docs: list[Document] = field(default_factory=list)
    _tf: list[Counter[str]] = field(default_factory=list)
    _len: list[int] = field(default_factory=list)
    _df: Counter[str] = field(default_factory=Counter)
    _by_url: dict[str, int] = field(default_factory=dict)

    @classmethod
    def build(cls, root: Path) -> CorpusIndex:
        index = cls(root)
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.is_file() and path.suffix.lower() in DOC_SUFFIXES:
                    index.add(parse_document(path, root))
        return index

    def add(self, doc: Document) -> None:
        tf: Counter[str] = Counter(tokenize(doc.body))
        for tok in tokenize(doc.title):
            tf[tok] += TITLE_WEIGHT
        self.docs.append(doc)
        self._tf.append(tf)
        self._len.append(sum(tf.values()))
        self._df.update(tf.keys())
        self._by_url[_normalise_url(doc.url)] = len(self.docs) - 1

    def search(self, query: str, k: int = 5) -> list[tuple[Document, float]]:
        terms = tokenize(query)
        n = len(self.docs)
        if not terms or n == 0:
            return []
        avg = sum(self._len) / n or 1.0
        scores: list[tuple[float, int]] = []
        for i, tf in enumerate(self._tf):
            score = 0.0
            for term in set(terms):
                f = tf.get(term, 0)
                if not f:
                    continue
                df = self._df[term]
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * self._len[i] / avg))
            if score > 0:
                scores.append((score, i))
        scores.sort(key=lambda s: (-s[0], self.docs[s[1]].url))
        return [(self.docs[i], s) for s, i in scores[:k]]

    def fetch(self, url: str) -> Document | None:
        i = self._by_url.get(_normalise_url(url))
        return self.docs[i] if i is not None else None


def snippet(doc: Document, query: str, width: int = 40) -> str:
    """The window of ``width`` words holding the most query terms."""
    words = doc.body.split()
    if not words:
        return ""
    terms = set(tokenize(query))
    hits = [1 if set(tokenize(w)) & terms else 0 for w in words]
    best, best_at, running = -1, 0, 0
    for i, h in enumerate(hits):
        running += h
        if i >= width:
            running -= hits[i - width]
        if running > best:
            best, best_at = running, max(0, i - width + 1)
    text = " ".join(words[best_at : best_at + width])
    prefix = "... " if best_at > 0 else ""
    suffix = " ..." if best_at + width < len(words) else ""
    return prefix + text + suffix


_indexes: dict[tuple[str, float], CorpusIndex] = {}
_indexes_lock = threading.Lock()


def corpus_index(root: Path) -> CorpusIndex:
    """A cached index, rebuilt when the corpus folder changes."""
    try:
        stamp = max((p.stat().st_mtime for p in root.rglob("*")), default=0.0)
    except OSError:
        stamp = 0.0
    key = (str(root.resolve()), stamp)
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = CorpusIndex.build(root)
        return _indexes[key]


def default_corpus_dir() -> Path:
    return suite_root() / "_corpus"


class WebSearch(BaseTool):
    name = "web_search"
    description = (
        "Search the web (an offline document collection) and get ranked results: title, url and "
        "a snippet. Fetch a result's full text with web_fetch."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "search words"},
            "max_results": {"type": "integer", "description": "how many results (default 5, at most 20)"},
        },
        "required": ["query"],
    }

    def __init__(self, corpus_dir: Path | None = None) -> None:
        self.corpus_dir = corpus_dir or default_corpus_dir()

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        k = min(max(int(args.get("max_results") or 5), 1), 20)
        index = corpus_index(self.corpus_dir)
        hits = index.search(args["query"], k)
        if not hits:
            return ToolResult(f"No results for {args['query']!r}.")
        blocks = [
            f"{n}. {doc.title}\n   {doc.url}\n   {snippet(doc, args['query'])}"
            for n, (doc, _score) in enumerate(hits, 1)
        ]
        text = "\n\n".join(blocks)
        return ToolResult(truncate(text), bytes_in=sum(len(d.body.encode()) for d, _ in hits))


class WebFetch(BaseTool):
    name = "web_fetch"
    description = "Fetch the full text of a web page by its url (from web_search results)."
    parameters = {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "the page's url"}},
        "required": ["url"],
    }

    def __init__(self, corpus_dir: Path | None = None) -> None:
        self.corpus_dir = corpus_dir or default_corpus_dir()

    async def run(self, sandbox: Sandbox, args: dict[str, Any]) -> ToolResult:
        doc = corpus_index(self.corpus_dir).fetch(args["url"])
        if doc is None:
            msg = f"could not fetch {args['url']}: page not found (use a url from web_search results)"
            return ToolResult(f"Error: {msg}", exit_code=1, error=msg)
        text = f"# {doc.title}\nurl: {doc.url}\n\n{doc.body}"
        return ToolResult(truncate(text), bytes_in=len(text.encode()))
