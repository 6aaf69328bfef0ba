"""Save a bundle for every labelled commit of the corpus that has none yet (needs the clones).

    python tests/corpus/build.py [--mirror-root DIR] [--mirror OWNER/NAME=PATH ...] [--force] [ID ...]

A clone of OWNER/NAME is looked up as ``DIR/OWNER+NAME/repo`` (the layout the session's
fetch tool makes) unless ``--mirror`` names it. Besides what the analyzers ask for, each
bundle carries the repository-wide references of every definition the commit removes or
renames, so a later analyzer can still tell dead code from moved code offline.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import sys
from pathlib import Path

from prreport.bundle import PullRequestBundle, bundle_file_bytes
from prreport.config import Config
from prreport.output import write_atomic
from prreport.pipeline import gather
from prreport.sources.git import GitSource

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels.jsonl"
BUNDLES = HERE / "bundles"


def load_labels(path: Path = LABELS) -> list[dict]:
    """Every label of the corpus, in file order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def bundle_path(label: dict) -> Path:
    """Where a label's bundle lives."""
    return BUNDLES / f"{label['id']}.json.gz"


def _defined(text: str | None) -> set[str]:
    if not text:
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    return {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def _removed_names(bundle: PullRequestBundle) -> set[str]:
    """Names defined before and no longer defined in the same file after."""
    names: set[str] = set()
    for f in bundle.files:
        if f.path.endswith(".py") and not f.binary:
            names |= _defined(f.before) - _defined(f.after)
    return names


def build_one(label: dict, repo: Path) -> Path:
    """Fetch one commit from its clone as a bundle and save it (gzip, reproducible)."""
    # Defaults only: the corpus measures prreport as it ships.
    config = dataclasses.replace(Config(), git=dataclasses.replace(Config().git, repo=str(repo)))
    source = GitSource(label["sha"], config.git)
    try:
        bundle = gather(source, config).bundle
        extra = sorted(_removed_names(bundle) - set(bundle.references))
        if extra:
            found, scope = source.find_references(extra)
            bundle = dataclasses.replace(
                bundle, references={**bundle.references, **found}, reference_scope=scope
            )
    finally:
        source.close()
    pr = dataclasses.replace(
        bundle.pr,
        repo=label["repo"],
        url=f"https://github.com/{label['repo']}/commit/{label['sha']}",
    )
    bundle = dataclasses.replace(bundle, pr=pr)
    out = bundle_path(label)
    write_atomic(out, bundle_file_bytes(bundle, out))
    return out


def main(argv: list[str] | None = None) -> int:
    """Build the missing bundles (or the named ones, or all with --force)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("ids", nargs="*", help="only these corpus ids")
    ap.add_argument(
        "--mirror-root", default="/work/.mirror", help="folder of OWNER+NAME/repo clones"
    )
    ap.add_argument("--mirror", action="append", default=[], help="OWNER/NAME=PATH of a clone")
    ap.add_argument("--force", action="store_true", help="rebuild bundles that exist")
    args = ap.parse_args(argv)
    mirrors = dict(m.split("=", 1) for m in args.mirror)
    failed = 0
    for label in load_labels():
        if args.ids and label["id"] not in args.ids:
            continue
        if bundle_path(label).exists() and not args.force and not args.ids:
            continue
        repo = Path(
            mirrors.get(label["repo"])
            or Path(args.mirror_root) / label["repo"].replace("/", "+") / "repo"
        )
        if not repo.exists():
            print(f"skip {label['id']}: no clone of {label['repo']} at {repo}", file=sys.stderr)
            failed += 1
            continue
        try:
            out = build_one(label, repo)
        except Exception as exc:  # one bad commit must not stop the others
            print(f"fail {label['id']}: {type(exc).__name__}: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(f"{out.relative_to(HERE)} {out.stat().st_size // 1024} KiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
