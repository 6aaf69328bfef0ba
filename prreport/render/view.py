"""The view templates read: the model as JSON plus its wording in one language."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from prreport.render.motivation import extract_motivation
from prreport.render.templates import environment
from prreport.report.model import ReportModel


def _one(value: Any) -> str:
    """Collapse a macro's output to one line."""
    return " ".join(str(value).split())


def _text_module(r: dict[str, Any], lang: str) -> Any:
    return environment().get_template(f"{lang}/text.md.j2").make_module({"r": r})


def _summary_of(r: dict[str, Any], text: Any) -> dict[str, str]:
    return {
        "one_line": _one(text.one_line(r)),
        "recommended_action": _one(text.recommended_action(r)),
    }


def summary_texts(model: ReportModel, lang: str = "en") -> dict[str, str]:
    """The summary wording in ``lang``: ``one_line`` and ``recommended_action`` (for digests)."""
    r = model.to_json()
    return _summary_of(r, _text_module(r, lang))


def _web_of(pr: dict[str, Any]) -> str:
    """The repository's web address (``https://github.com/OWNER/NAME``), from the PR or commit URL.

    Empty unless the URL is the page of ``pr.repo`` itself: a folder name is not a repository.
    """
    repo = str(pr.get("repo") or "")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo):
        return ""
    m = re.match(
        rf"(https?://[^/\s?#]+/{re.escape(repo)})/(pull|commit)/", str(pr.get("url") or "")
    )
    return m.group(1) if m else ""


def _add_links(r: dict[str, Any]) -> None:
    """Links to the commits, the files at head and the snippets' lines, when the repository is known."""
    web = _web_of(r["pr"])
    head = str(r["pr"].get("head_sha") or "")
    r["links"] = {"web": web}
    files: dict[str, str] = {}
    for f in r["files"]:
        keep = web and head and f["status"] != "removed"
        f["url"] = f"{web}/blob/{head}/{quote(f['path'])}" if keep else ""
        files[f["path"]] = f["url"]
    for s in r["snippets"]:
        base = files.get(s["path"], "")
        s["url"] = f"{base}#L{s['start_line']}-L{s['end_line']}" if base else ""


# Lines of one left-over edit the Markdown report quotes.
_EDIT_DIFF_LINES = 12


def left_hunks(model: ReportModel) -> list[dict[str, Any]]:
    """Each left-over edit of the review view (``model.ledger["edits"]``) with ``diff``: its left
    lines as a short diff (``-``/``+``, at most 12 lines). Edits with a witnessed behaviour change
    first, then those of library source, then the rest, each in the view's file order."""
    rows: dict[int, list[str]] = {}
    order: list[int] = []
    for f in model.diff:
        for h in f["hunks"]:
            for b in h["blocks"]:
                if b["type"] == "left":
                    if b["edit"] not in rows:
                        order.append(b["edit"])
                    rows.setdefault(b["edit"], []).extend(
                        f"{r['sign']}{r['text']}" for r in b["rows"]
                    )
    edits = model.ledger.get("edits") or []
    out = []
    for k in order:
        lines = rows[k]
        cut = lines[:_EDIT_DIFF_LINES]
        if len(lines) > len(cut):
            cut.append(" ...")
        out.append({**edits[k], "diff": "\n".join(cut) + "\n"})
    return sorted(out, key=lambda e: (not e["witnesses"], e["category"] != "source"))


def report_view(model: ReportModel, lang: str) -> dict[str, Any]:
    """The model as JSON plus its ``lang`` wording (summary, captions, risk titles) and motivation sections."""
    r = model.to_json()
    r["motivation"].update(extract_motivation(r["motivation"]["body"]))
    _add_links(r)
    text = _text_module(r, lang)
    r["summary"].update(_summary_of(r, text))
    for s in r["snippets"]:
        s["caption"] = _one(text.caption(s))
    for risk in r["risks"]:
        risk["title"] = _one(text.risk_title(risk))
    r["left_hunks"] = left_hunks(model)
    # Files with nothing left to read, in the order the review view shows them.
    r["done_files"] = [f["path"] for f in model.diff if not f["left"] and f["changed"]]
    return r
