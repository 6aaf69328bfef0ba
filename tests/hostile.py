"""Hostile PR text for the escaping tests: names, titles, bodies and comments an attacker controls.

``hostile_bundle`` takes a saved bundle of the seed PR and plants the strings below wherever a
PR supplies text: a changed file's name (a real hoist, so the file is analysed and quoted in
every section), the title, the body, labels, the author, review and issue comments, related PR
titles, commit subjects, CI check names and the PR URL.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

ESC = "\x1b"
# A file name that, unescaped, closes its inline code span and opens a fake verdict heading,
# a phishing link, a raw mention, a workflow command, an HTML block hiding a mention behind an
# injected fence, and an unclosed fence that hides the mentions after it from a neutraliser.
EVIL_NAME = (
    "python/sglang/srt/disaggregation/evil`\n\n# VERDICT: pure-refactor, safe to merge\n\n"
    "[Approve here](https://evil.example/phish)\n"
    "::error file=app.py,line=1::pwned\n"
    "@admin please merge\n"
    "<details>\n```\n@root\n```\n</details>\n"
    "```\n@owner\n/conn.py"
)
# Terminal control sequences: an OSC 8 hyperlink, a screen clear, colours, a window title,
# BEL, a one-byte C1 CSI, and a bidi override that reverses what follows.
EVIL_TITLE = (
    f"refactor(disagg): hoist {ESC}]8;;https://evil.example{ESC}\\click me{ESC}]8;;{ESC}\\ "
    f"{ESC}[2J{ESC}[31mRED{ESC}[0m {ESC}]0;owned\x07 \x9b31m \u202egnp.exe\u202c "
    "&#64;admin &#x40;org/team &commat;boss\r# CR heading\n::warning::title"
)
EVIL_BODY = (
    "## Motivation\n\n"
    "Hoists imports. &#64;security-team &#x40;admins &commat;root @&#97;dmin\n\n"
    f"```\n@inside-fence\n```\n\n{ESC}[2J{ESC}]52;c;ZXZpbA=={ESC}\\ \u202eevil\n"
    "::error file=x.py::from the body\n"
    "```\nunclosed fence then @tail-mention\n"
)
EVIL_COMMENT = "LGTM `\n::error::from a comment\n```\n@reviewer-team &#64;leads\n\x1b[41m"
EVIL_LABEL = "bug`\n# fake heading\n@label-owner"
EVIL_AUTHOR = "mallory\n::notice::x"
EVIL_URL = "https://github.com/o/r/pull/1>\n# injected <https://evil.example"

MENTIONS = ("admin", "root", "owner", "security-team", "admins", "boss", "reviewer-team", "leads")


def hostile_bundle(seed_bundle: Path, out: Path) -> Path:
    """Write a copy of ``seed_bundle`` with hostile text everywhere a PR supplies it."""
    d: dict[str, Any] = json.loads(seed_bundle.read_text(encoding="utf-8"))
    pr = d["pr"]
    pr.update(
        title=EVIL_TITLE,
        body=EVIL_BODY,
        labels=[EVIL_LABEL],
        author=EVIL_AUTHOR,
        merged_by=EVIL_AUTHOR,
        url=EVIL_URL,
    )
    evil = copy.deepcopy(d["files"][0])
    evil["path"] = EVIL_NAME
    d["files"].append(evil)
    d["review_data_available"] = True
    d["reviews"] = [
        {"kind": "review", "author": EVIL_AUTHOR, "body": EVIL_COMMENT, "state": "COMMENTED"}
    ]
    d["review_comments"] = [
        {
            "kind": "review_comment",
            "author": "reviewer",
            "body": EVIL_COMMENT + " please look",
            "path": EVIL_NAME,
            "line": 3,
        }
    ]
    d["issue_comments"] = [{"kind": "issue_comment", "author": "x", "body": EVIL_COMMENT}]
    d["checks"] = [{"name": EVIL_LABEL, "status": "completed", "conclusion": "failure"}]
    for r in d["related"]:
        r["title"] = EVIL_TITLE
        r["url"] = EVIL_URL
    for c in d["commits"]:
        c["subject"] = EVIL_TITLE
    out.write_text(json.dumps(d), encoding="utf-8")
    return out


# A changed file whose name and changed line would, unescaped, end a workflow command's property
# list, start a second command on a new line, plant an escape GitHub decodes, clear the screen
# and reverse the text (annotations, SARIF); its change is a risk, so both formats locate it.
EVIL_PATH = "python/sglang/x%41,y:z\n::error file=a.py,line=1::pwned\r\x1b[2J\u202e.py"
EVIL_LINE = "LIMIT = 2  # ::error::c%0A,\u202e"


def hostile_bundle_with_risk(seed_bundle: Path, out: Path) -> Path:
    """``hostile_bundle`` plus a changed file at ``EVIL_PATH`` whose edit is left unexplained."""
    hostile_bundle(seed_bundle, out)
    d: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    d["files"].append(
        {
            "path": EVIL_PATH,
            "old_path": None,
            "status": "modified",
            "additions": 1,
            "deletions": 1,
            "binary": False,
            "note": None,
            "before": "LIMIT = 1\n",
            "after": EVIL_LINE + "\n",
            "patch": f"@@ -1 +1 @@\n-LIMIT = 1\n+{EVIL_LINE}\n",
        }
    )
    out.write_text(json.dumps(d), encoding="utf-8")
    return out
