"""The corpus README's fair-sample rule, applied to one bare clone: prints candidate labels.

    python tests/corpus/fair_sample.py owner/name /path/to/bare.git [--refactors 5] [--fixes 2]

Prints one JSON line per commit taken (repo, sha, subject, py_lines_changed); labelling is
then done by reading each diff. The rule is fixed before any result is looked at: see
"Fair samples" in tests/corpus/README.md. Commits already in labels.jsonl are skipped.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

# Cohorts 1-3 used `move`, which also matches "remove" (so cohort 3 is mostly removals);
# from cohort 4 on the word itself is matched.
REFACTOR = re.compile(
    r"refactor|\bmov(e|es|ed|ing)\b|renam|cleanup|clean up|simplif|lazy|extract|inline"
    r"|no functional|tidy|dedup",
    re.I,
)
FIX = re.compile(r"^fix|bug|fixes #", re.I)
TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$")
NOT_CODE = re.compile(
    r"\b(typo|format(ting)?|docs?|black|isort|ruff format|pre-commit autoupdate)\b", re.I
)
LABELS = Path(__file__).with_name("labels.jsonl")


def git(repo: str, *args: str) -> str:
    run = subprocess.run(
        ["git", "--git-dir", repo, *args], capture_output=True, text=True, errors="replace"
    )
    return run.stdout


def py_lines(repo: str, sha: str) -> tuple[int, bool]:
    """Added + deleted .py lines, and whether a non-test .py file is touched."""
    total, non_test = 0, False
    for row in git(repo, "show", "--numstat", "--format=", sha).splitlines():
        parts = row.split("\t")
        if len(parts) != 3 or not parts[2].endswith(".py") or parts[0] == "-":
            continue
        total += int(parts[0]) + int(parts[1])
        non_test = non_test or not TEST_PATH.search(parts[2])
    return total, non_test


def sample(slug: str, repo: str, refactors: int, fixes: int) -> list[dict[str, object]]:
    known = {json.loads(line)["sha"] for line in LABELS.read_text().splitlines() if line.strip()}
    head = git(repo, "symbolic-ref", "HEAD").strip() or "HEAD"
    log = git(repo, "log", "--first-parent", "--no-merges", "--format=%H%x00%s", head, "-n", "5000")
    refs: list[dict[str, object]] = []
    bugs: list[dict[str, object]] = []
    for line in log.splitlines():
        sha, subject = line.split("\0", 1)
        if sha in known:
            continue
        want_ref = bool(REFACTOR.search(subject)) and len(refs) < refactors
        want_fix = bool(FIX.search(subject)) and len(bugs) < fixes
        if not (want_ref or want_fix):
            continue
        if NOT_CODE.search(subject) and not re.search(
            r"refactor|move|extract|inline", subject, re.I
        ):
            continue
        lines, non_test = py_lines(repo, sha)
        if not (10 <= lines <= 400 and non_test):
            continue
        row = {"repo": slug, "sha": sha, "subject": subject, "py_lines_changed": lines}
        (refs if want_ref else bugs).append(row)
        if len(refs) == refactors and len(bugs) == fixes:
            break
    return refs + bugs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("slug", help="owner/name")
    ap.add_argument("repo", help="path of a bare clone")
    ap.add_argument("--refactors", type=int, default=5, help="refactor-subject commits to take")
    ap.add_argument("--fixes", type=int, default=2, help="fix-subject commits to take")
    args = ap.parse_args()
    for row in sample(args.slug, args.repo, args.refactors, args.fixes):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
