"""Charts: the digest's Mermaid blocks (``pie``, ``xychart-beta``) drawn as inline SVG for the HTML page.

The Markdown digest carries its charts as Mermaid, which GitHub draws in the published
issue. The HTML page must work without scripts (its CSP forbids them), so the renderer
reads back the small Mermaid subset the digest templates write and draws each chart itself:
a pie with a legend, or grouped bars with lines over them. Labels are escaped; numbers are
numbers; anything else is left as the code block it was.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape

# Slice and series colours (GitHub's Primer palette, distinguishable in print and for
# the common colour-vision deficiencies when paired with the legend's labels).
PALETTE = ("#1a7f37", "#9a6700", "#cf222e", "#6e7781", "#8250df", "#0969da", "#bf3989")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_QUOTED = re.compile(r'"([^"]*)"')
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_FENCE = re.compile(r"^```mermaid\n(.*?)\n```$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Dataset:
    """One series of an xy chart: ``bar`` or ``line``, its legend name and one value per category."""

    kind: str
    name: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class Chart:
    """A parsed chart: a pie (``labels`` + ``values``) or an xy chart (``labels`` + ``datasets``)."""

    kind: str  # "pie" | "xy"
    title: str
    labels: tuple[str, ...]
    values: tuple[float, ...] = ()
    datasets: tuple[Dataset, ...] = ()
    y_title: str = ""
    colors: tuple[str, ...] = PALETTE


def mermaid_blocks(markdown: str) -> list[tuple[int, int, str]]:
    """``(start, end, source)`` of every fenced ``mermaid`` block in the Markdown."""
    return [(m.start(), m.end(), m.group(1)) for m in _FENCE.finditer(markdown)]


def parse_mermaid(source: str) -> Chart | None:
    """The chart of a Mermaid ``pie`` or ``xychart-beta`` block, or None for anything else.

    Comments carry what Mermaid cannot say: ``%% colors: #hex …`` and ``%% series: a | b``
    (legend names of the datasets, in order).
    """
    lines = [ln.strip() for ln in source.splitlines() if ln.strip()]
    if not lines:
        return None
    head, rest = lines[0], lines[1:]
    colors: tuple[str, ...] = PALETTE
    names: list[str] = []
    body: list[str] = []
    for ln in rest:
        if ln.startswith("%%"):
            key, _, value = ln[2:].partition(":")
            if key.strip() == "colors":
                picked = tuple(c for c in value.split() if _HEX.match(c))
                colors = picked + PALETTE if picked else PALETTE
            elif key.strip() == "series":
                names = [n.strip() for n in value.split("|")]
            continue
        body.append(ln)
    if head.startswith("pie"):
        return _parse_pie(head, body, colors)
    if head == "xychart-beta":
        return _parse_xy(body, colors, names)
    return None


def _parse_pie(head: str, body: list[str], colors: tuple[str, ...]) -> Chart | None:
    title = ""
    if " title " in f"{head} ":
        title = head.split("title", 1)[1].strip()
    labels: list[str] = []
    values: list[float] = []
    for ln in body:
        if ln.startswith("title "):
            title = ln[6:].strip()
            continue
        m = re.match(r'^"([^"]*)"\s*:\s*(\S+)$', ln)
        if not m or not _NUMBER.match(m.group(2)):
            return None
        labels.append(m.group(1))
        values.append(float(m.group(2)))
    if not labels or any(v < 0 for v in values):
        return None
    return Chart("pie", title, tuple(labels), tuple(values), colors=colors)


def _parse_xy(body: list[str], colors: tuple[str, ...], names: list[str]) -> Chart | None:
    title = ""
    labels: list[str] = []
    y_title = ""
    datasets: list[Dataset] = []
    for ln in body:
        word, _, rest = ln.partition(" ")
        if word == "title":
            m = _QUOTED.search(rest)
            title = m.group(1) if m else rest.strip()
        elif word == "x-axis":
            labels = _QUOTED.findall(rest)
        elif word == "y-axis":
            m = _QUOTED.search(rest)
            y_title = m.group(1) if m else ""
        elif word in ("bar", "line"):
            raw = rest.strip()
            if not (raw.startswith("[") and raw.endswith("]")):
                return None
            items = [v.strip() for v in raw[1:-1].split(",") if v.strip()]
            if not all(_NUMBER.match(v) for v in items):
                return None
            name = names[len(datasets)] if len(datasets) < len(names) else ""
            datasets.append(Dataset(word, name, tuple(float(v) for v in items)))
        else:
            return None
    if not labels or not datasets or any(len(d.values) != len(labels) for d in datasets):
        return None
    return Chart(
        "xy", title, tuple(labels), datasets=tuple(datasets), y_title=y_title, colors=colors
    )


def chart_svg(chart: Chart) -> str:
    """The chart as an inline ``<svg>`` (scales with its box; no script, no external reference)."""
    return _pie_svg(chart) if chart.kind == "pie" else _xy_svg(chart)


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.1f}"


def _open(width: int, height: int, title: str) -> list[str]:
    t = escape(title)
    return [
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{t}">',
        f"<title>{t}</title>",
        f'<text x="0" y="16" font-size="15" font-weight="600" fill="#1f2328">{t}</text>',
    ]


def _pie_svg(chart: Chart) -> str:
    total = sum(chart.values)
    rows = len(chart.labels)
    height = max(230, 40 + rows * 24)
    out = _open(520, height, chart.title)
    cx, cy, r = 110.0, 125.0, 90.0
    if total <= 0:
        out.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="none" stroke="#d1d9e0" stroke-width="2"/>'
        )
    else:
        angle = -math.pi / 2
        for i, value in enumerate(chart.values):
            if value <= 0:
                continue
            color = chart.colors[i % len(chart.colors)]
            if value >= total:
                out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{color}"/>')
                break
            sweep = 2 * math.pi * value / total
            x1, y1 = cx + r * math.cos(angle), cy + r * math.sin(angle)
            angle += sweep
            x2, y2 = cx + r * math.cos(angle), cy + r * math.sin(angle)
            large = 1 if sweep > math.pi else 0
            out.append(
                f'<path d="M{cx:.1f},{cy:.1f} L{x1:.1f},{y1:.1f} A{r:.0f},{r:.0f} 0 {large} 1 {x2:.1f},{y2:.1f} Z" '
                f'fill="{color}" stroke="#fff" stroke-width="1.5"/>'
            )
    for i, (label, value) in enumerate(zip(chart.labels, chart.values, strict=True)):
        y = 48 + i * 24
        color = chart.colors[i % len(chart.colors)]
        pct = f" ({100 * value / total:.0f}%)" if total > 0 else ""
        out.append(f'<rect x="232" y="{y - 11}" width="13" height="13" rx="2" fill="{color}"/>')
        out.append(
            f'<text x="252" y="{y}" font-size="13" fill="#1f2328">{escape(label)}: {_fmt(value)}{pct}</text>'
        )
    out.append("</svg></figure>")
    return "\n".join(out)


def _nice_max(value: float) -> float:
    """The axis top: 1, 2 or 5 times a power of ten, at or above the largest value."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return float(step * power)
    return float(10 * power)


@dataclass(frozen=True)
class _Plot:
    """Where an xy chart's plot area is: its left edge, baseline, height, slot per category and top value."""

    left: int
    top: int
    height: int
    slot: int
    width: int
    top_value: float

    @property
    def base(self) -> int:
        return self.top + self.height

    def y_of(self, v: float) -> float:
        return self.base - self.height * v / self.top_value


def _xy_svg(chart: Chart) -> str:
    n = len(chart.labels)
    slot = 64 if n <= 8 else 44
    left, top, plot_h = 52, 64, 190
    width = max(360, left + n * slot + 24)
    long_labels = any(len(lb) > 9 for lb in chart.labels) or slot < 64
    height = top + plot_h + (92 if long_labels else 40)
    out = _open(width, height, chart.title)
    out.extend(_xy_legend(chart))
    top_value = _nice_max(max((v for d in chart.datasets for v in d.values), default=0))
    plot = _Plot(left, top, plot_h, slot, width, top_value)
    out.extend(_xy_axis(chart, plot))
    out.extend(_xy_bars(chart, plot, long_labels))
    out.extend(_xy_lines(chart, plot))
    out.append(
        f'<line x1="{left}" y1="{plot.base}" x2="{width - 8}" y2="{plot.base}" stroke="#59636e" stroke-width="1"/>'
    )
    out.append("</svg></figure>")
    return "\n".join(out)


def _xy_legend(chart: Chart) -> list[str]:
    """Legend (Mermaid's xychart has none; the series names come from a %% comment)."""
    out = []
    x = 0
    for i, d in enumerate(chart.datasets):
        if not d.name:
            continue
        color = chart.colors[i % len(chart.colors)]
        mark = (
            f'<rect x="{x}" y="30" width="13" height="13" rx="2" fill="{color}"/>'
            if d.kind == "bar"
            else f'<line x1="{x}" y1="37" x2="{x + 13}" y2="37" stroke="{color}" stroke-width="3"/>'
        )
        out.append(mark)
        out.append(
            f'<text x="{x + 19}" y="41" font-size="13" fill="#1f2328">{escape(d.name)}</text>'
        )
        x += 19 + _text_width(d.name) + 24
    return out


def _xy_axis(chart: Chart, plot: _Plot) -> list[str]:
    """Grid lines with their values, and the y axis title."""
    out = []
    left, top_value = plot.left, plot.top_value
    # Whole-number ticks for counts: a step that divides the axis top.
    ticks = next((n for n in (5, 4, 2, 1) if (top_value / n).is_integer()), 4)
    for k in range(ticks + 1):
        v = top_value * k / ticks
        y = plot.y_of(v)
        out.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{plot.width - 8}" y2="{y:.1f}" stroke="#d1d9e0" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#59636e">{_fmt(v)}</text>'
        )
    if chart.y_title:
        mid = plot.top + plot.height / 2
        out.append(
            f'<text x="12" y="{mid:.0f}" font-size="11" fill="#59636e" '
            f'transform="rotate(-90 12 {mid:.0f})" text-anchor="middle">{escape(chart.y_title)}</text>'
        )
    return out


def _xy_bars(chart: Chart, plot: _Plot, long_labels: bool) -> list[str]:
    """Each category's bars side by side, and its label under them."""
    out = []
    bars = [d for d in chart.datasets if d.kind == "bar"]
    left, slot, base = plot.left, plot.slot, plot.base
    bar_w = (slot - 16) / max(1, len(bars))
    for j, label in enumerate(chart.labels):
        x0 = left + j * slot + 8
        for b, d in enumerate(bars):
            color = chart.colors[chart.datasets.index(d) % len(chart.colors)]
            v = d.values[j]
            y = plot.y_of(v)
            out.append(
                f'<rect x="{x0 + b * bar_w:.1f}" y="{y:.1f}" width="{bar_w - 2:.1f}" height="{base - y:.1f}" fill="{color}">'
                f"<title>{escape(label)}: {escape(d.name)} {_fmt(v)}</title></rect>"
            )
        cx = left + j * slot + slot / 2
        if long_labels:
            out.append(
                f'<text x="{cx:.1f}" y="{base + 14}" font-size="11" fill="#1f2328" text-anchor="end" '
                f'transform="rotate(-35 {cx:.1f} {base + 14})">{escape(_short(label))}</text>'
            )
        else:
            out.append(
                f'<text x="{cx:.1f}" y="{base + 16}" font-size="11" fill="#1f2328" text-anchor="middle">{escape(label)}</text>'
            )
    return out


def _xy_lines(chart: Chart, plot: _Plot) -> list[str]:
    """The line series over the bars, a dot (with its value) per category."""
    out = []
    for d in (d for d in chart.datasets if d.kind == "line"):
        color = chart.colors[chart.datasets.index(d) % len(chart.colors)]
        pts = [
            (plot.left + j * plot.slot + plot.slot / 2, plot.y_of(v))
            for j, v in enumerate(d.values)
        ]
        out.append(
            f'<polyline points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in pts)}" fill="none" stroke="{color}" stroke-width="2.5"/>'
        )
        for (px, py), v, label in zip(pts, d.values, chart.labels, strict=True):
            out.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="{color}"><title>{escape(label)}: {escape(d.name)} {_fmt(v)}</title></circle>'
            )
    return out


def _text_width(text: str) -> int:
    """Rough width in pixels of 13 px text: CJK characters are about twice as wide."""
    return sum(13 if ord(c) >= 0x2E80 else 7 for c in text)


def _short(label: str, limit: int = 22) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"
