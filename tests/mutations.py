"""Mutated real Python modules for the fuzz test: unusual bytes, broken syntax, real refactors.

Each case is a real module of the standard library before, and a mutation of it after (or
the reverse), with the patch ``git diff`` writes for it, run through the whole pipeline
(analysis, report model, every renderer). ``python -m tests.mutations [--cases N]`` runs a
longer campaign than the test does and prints what it tried and what failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from prreport.bundle import FileChange, PullRequestBundle, PullRequestMeta
from prreport.config import Config
from prreport.pipeline import analyse, render_outputs
from prreport.report.ledger import is_failure


def _stdlib() -> Path:
    """The system's standard library (/usr/lib/python3.*: Debian's keeps the email package's
    form feeds), else the running interpreter's."""
    for p in sorted(Path("/usr/lib").glob("python3.*"), reverse=True):
        if (p / "email" / "feedparser.py").is_file():
            return p
    return Path(sysconfig.get_paths()["stdlib"])


STDLIB = _stdlib()
# Real modules of 5-60 KB with function-local imports, classes, loops, decorators.
MODULES = (
    "shutil.py",
    "tempfile.py",
    "gettext.py",
    "netrc.py",
    "shlex.py",
    "zipapp.py",
    "pstats.py",
    "fileinput.py",
    "mailbox.py",
    "platform.py",
    "textwrap.py",
    "webbrowser.py",
    "calendar.py",
    "sysconfig.py",
    "locale.py",
)

Mutation = Callable[[str, random.Random], str]


def split_lines(text: str) -> list[str]:
    """Python's (and git's) lines: ``prreport.textlines.split_lines`` where it exists."""
    try:
        from prreport.textlines import split_lines as split
    except ImportError:  # an older prreport, to show a test fails before a fix
        return re.split(r"\r\n|\r|\n", text.removesuffix("\n"))
    return split(text)


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _top_level_blank(lines: list[str], rnd: random.Random) -> int:
    blanks = [i for i, ln in enumerate(lines) if not ln.strip() and i > 0]
    return rnd.choice(blanks) if blanks else len(lines)


def form_feed(text: str, rnd: random.Random) -> str:
    """Page breaks (form feed lines, as in older stdlib modules) between definitions."""
    lines = _lines(text)
    for _ in range(3):
        lines.insert(_top_level_blank(lines, rnd), "\x0c")
    return "\n".join(lines)


def odd_breaks_in_comments(text: str, rnd: random.Random) -> str:
    """Comments holding characters ``str.splitlines`` breaks at: VT, FS-RS, NEL, U+2028/9."""
    lines = _lines(text)
    for ch in ("\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"):
        lines.insert(_top_level_blank(lines, rnd), f"# odd {ch} break")
    return "\n".join(lines)


def odd_breaks_in_strings(text: str, rnd: random.Random) -> str:
    """String constants holding line-separator characters, plus a hoisted import."""
    lines = _lines(text)
    lines.insert(_top_level_blank(lines, rnd), "SEP = '\u2028|\x0c|\x85'")
    return hoist_import("\n".join(lines), rnd)


def bom(text: str, rnd: random.Random) -> str:
    """A UTF-8 byte-order mark (valid Python) on an otherwise unchanged refactor."""
    return "\ufeff" + hoist_import(text, rnd)


def crlf(text: str, rnd: random.Random) -> str:
    """Windows line ends."""
    return text.replace("\n", "\r\n")


def cr_only(text: str, rnd: random.Random) -> str:
    """Old-Mac line ends (CR only)."""
    return text.replace("\n", "\r")


def null_byte(text: str, rnd: random.Random) -> str:
    """A NUL byte past the first 8 KB (so the file is not taken for binary)."""
    at = max(len(text) // 2, min(len(text), 9000))
    return text[:at] + "\0" + text[at:]


def conflict_markers(text: str, rnd: random.Random) -> str:
    """An unresolved merge conflict around a few lines."""
    lines = _lines(text)
    i = rnd.randrange(1, max(2, len(lines) - 4))
    return "\n".join(
        [*lines[:i], "<<<<<<< HEAD", *lines[i : i + 2], "=======", *lines[i : i + 3], ">>>>>>> b"]
        + lines[i + 3 :]
    )


def long_chain(text: str, rnd: random.Random) -> str:
    """An expression chain of ~1000 terms (parses, but nests the tree ~1000 deep)."""
    n = rnd.choice((1000, 3000))
    return text + "\nLONG = " + " + ".join(["1"] * n) + "\n"


def deep_parens(text: str, rnd: random.Random) -> str:
    """Parentheses nested past the parser's limit."""
    return text + "\nDEEP = " + "(" * 250 + "1" + ")" * 250 + "\n"


_LOCAL_IMPORT = re.compile(r"^( +)(import [\w.]+|from [\w.]+ import [\w, ]+)$")


def hoist_import(text: str, rnd: random.Random) -> str:
    """Move one function-local import to the top of the module (a real refactor)."""
    lines = _lines(text)
    local = [i for i, ln in enumerate(lines) if _LOCAL_IMPORT.match(ln)]
    if not local:
        return text
    i = rnd.choice(local)
    m = _LOCAL_IMPORT.match(lines[i])
    assert m is not None
    stmt = m.group(2)
    del lines[i]
    first = next((k for k, ln in enumerate(lines) if ln.startswith(("import ", "from "))), 0)
    lines.insert(first, stmt)
    return "\n".join(lines)


def delete_function(text: str, rnd: random.Random) -> str:
    """Remove one top-level function (dead code, or a live one)."""
    lines = _lines(text)
    defs = [i for i, ln in enumerate(lines) if ln.startswith("def ")]
    if not defs:
        return text
    i = rnd.choice(defs)
    end = next(
        (k for k in range(i + 1, len(lines)) if lines[k] and not lines[k][0].isspace()), len(lines)
    )
    return "\n".join(lines[:i] + lines[end:])


def rename_function(text: str, rnd: random.Random) -> str:
    """Rename one top-level function and its uses."""
    names = re.findall(r"(?m)^def (\w+)\(", text)
    if not names:
        return text
    name = rnd.choice(names)
    return re.sub(rf"\b{re.escape(name)}\b", f"{name}_renamed", text)


def truncate(text: str, rnd: random.Random) -> str:
    """The file cut off mid-way (usually a syntax error)."""
    return text[: rnd.randrange(len(text) // 3, len(text))]


def shuffle_lines(text: str, rnd: random.Random) -> str:
    """A few lines swapped, duplicated or dropped."""
    lines = _lines(text)
    for _ in range(3):
        i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
        op = rnd.choice(("swap", "dup", "drop"))
        if op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "dup":
            lines.insert(j, lines[i])
        elif len(lines) > 2:
            del lines[i]
    return "\n".join(lines)


def reindent(text: str, rnd: random.Random) -> str:
    """Tabs for indentation on one function (inconsistent indentation)."""
    lines = _lines(text)
    i = rnd.randrange(len(lines))
    for k in range(i, min(len(lines), i + 6)):
        lines[k] = lines[k].replace("    ", "\t", 1)
    return "\n".join(lines)


MUTATIONS: dict[str, Mutation] = {
    f.__name__: f
    for f in (  # the ones that crashed analyzers first: a short budget still tries them
        long_chain,
        crlf,
        cr_only,
        null_byte,
        conflict_markers,
        deep_parens,
        form_feed,
        odd_breaks_in_comments,
        odd_breaks_in_strings,
        bom,
        hoist_import,
        delete_function,
        rename_function,
        truncate,
        shuffle_lines,
        reindent,
    )
}


@dataclass(frozen=True)
class Case:
    """One fuzz case: a module, a mutation and which side it is on."""

    module: str
    mutation: str
    seed: int
    reverse: bool  # the mutation is the before side (the PR repairs it)

    def texts(self) -> tuple[str, str]:
        """(before, after)."""
        original = (STDLIB / self.module).read_text(encoding="utf-8")
        mutated = MUTATIONS[self.mutation](original, random.Random(self.seed))
        return (mutated, original) if self.reverse else (original, mutated)


# Small real modules, for the bounded fuzz test of the suite.
SMALL_MODULES = ("netrc.py", "zipapp.py", "shlex.py", "textwrap.py", "fileinput.py")


def cases(seed: int = 13, modules: tuple[str, ...] = MODULES) -> Iterator[Case]:
    """Every mutation on a module in turn (both directions), forever, reproducibly."""
    rnd = random.Random(seed)
    modules = tuple(m for m in modules if (STDLIB / m).is_file())
    n = 0
    while True:
        for name in MUTATIONS:
            yield Case(rnd.choice(modules), name, rnd.randrange(1 << 30), reverse=n % 5 == 4)
            n += 1


def git_patch(before: str, after: str) -> str:
    """The patch ``git diff`` writes for the pair (as the git source stores it: from ``@@``)."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a", Path(tmp) / "b"
        a.write_bytes(before.encode("utf-8", "surrogatepass"))
        b.write_bytes(after.encode("utf-8", "surrogatepass"))
        out = subprocess.run(
            ["git", "diff", "--no-index", "--no-color", "--text", str(a), str(b)],
            capture_output=True,
            check=False,
        ).stdout.decode("utf-8", "replace")
    body = out.split("\n@@", 1)
    return "@@" + body[1] if len(body) == 2 else ""


def bundle_of(case: Case) -> PullRequestBundle:
    """A one-file PR bundle for a case."""
    before, after = case.texts()
    patch = git_patch(before, after)
    rows = patch.split("\n")
    added = sum(1 for r in rows if r.startswith("+"))
    removed = sum(1 for r in rows if r.startswith("-"))
    path = f"pkg/{case.module}"
    meta = PullRequestMeta(
        repo="fuzz/stdlib",
        number=1,
        title=f"refactor: {case.mutation} on {case.module}",
        body="Pure refactor, no behaviour change.",
        author="fuzz",
        base_sha="0" * 40,
        head_sha="1" * 40,
    )
    change = FileChange(path, "modified", added, removed, patch=patch, before=before, after=after)
    return PullRequestBundle(
        source="bundle",
        pr=meta,
        files=(change,),
        head_paths=("pkg/__init__.py", path),
        context_files={"pkg/__init__.py": ""},
    )


def run_case(case: Case, out_dir: Path) -> list[str]:
    """Run the whole pipeline on a case; the analyzer failures and crashes it met."""
    config = Config()
    config = dataclasses.replace(
        config, report=dataclasses.replace(config.report, formats=("md", "html", "json"))
    )
    try:
        analysis = analyse(bundle_of(case), config)
        render_outputs(analysis, config, out_dir)
    except Exception as exc:  # the pipeline itself crashed
        return [f"pipeline crashed: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}"]
    return [d.message.split("\n")[0] for d in analysis.diagnostics if is_failure(d)]


def campaign(
    budget: float, max_cases: int, seed: int = 13, modules: tuple[str, ...] = MODULES
) -> tuple[list[Case], dict[Case, list[str]]]:
    """Cases tried within ``budget`` seconds (at most ``max_cases``) and those that failed."""
    tried: list[Case] = []
    failed: dict[Case, list[str]] = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases(seed, modules):
            if len(tried) >= max_cases or time.monotonic() - start > budget:
                break
            tried.append(case)
            problems = run_case(case, Path(tmp))
            if problems:
                failed[case] = problems
    return tried, failed


def main() -> None:
    """Run a campaign and print what was tried and what failed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    tried, failed = campaign(args.seconds, args.cases, args.seed)
    by_mutation: dict[str, list[int]] = {}
    for c in tried:
        by_mutation.setdefault(c.mutation, [0, 0])[0] += 1
        if c in failed:
            by_mutation[c.mutation][1] += 1
    for name, (n, bad) in sorted(by_mutation.items()):
        print(f"{name:24s} tried {n:3d}  failed {bad}")
    for c, problems in failed.items():
        print(f"FAIL {c}: {problems}")
    print(f"{len(tried)} cases, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
