"""A plain dataclass's construction moved within its block, and an inlined helper's attribute
argument read again at each use (fastapi bb88a0f9: ``get_param_sub_dependant`` inlined into
``get_dependant``, whose ``dependant = Dependant(...)`` now comes before the path and signature
computations).

Each near-miss below is the real code with one real difference that makes the rewrite wrong,
and must stay unproven.
"""

from __future__ import annotations

from pathlib import Path

from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_bundle, corpus_text
from tests.gitrepo import analyse_commit

CASE = "fastapi-bb88a0f9"
UTILS = "fastapi/dependencies/utils.py"
MODELS = "fastapi/dependencies/models.py"
POST_INIT = "        self.cache_key = (self.call, tuple(sorted(set(self.security_scopes or []))))\n"


def _inlined(a: Analysis) -> Finding:
    [fd] = [f for f in a.findings if f.kind == "code.inlined"]
    return fd


def _site_rewrites(fd: Finding) -> dict[tuple[str, str], str]:
    [site] = fd.details["sites"]
    return {(r["kind"], r["text"]): r["detail"] for r in site["rewrites"]}


def _models() -> str:
    text = corpus_bundle(CASE).context_files[MODELS]
    assert text is not None and POST_INIT in text
    return text


def _replay(
    tmp_path: Path,
    models: str | None = None,
    before: tuple[str, str] | None = None,
    after: tuple[str, str] | None = None,
    both: tuple[str, str] | None = None,
) -> Analysis:
    """The real commit in a new repository, with ``old -> new`` replaced in the before
    (``before``), the after (``after``) or both versions of utils.py."""
    old = corpus_text(CASE, UTILS, "before")
    new = corpus_text(CASE, UTILS, "after")
    for edit, sides in ((before, "b"), (after, "a"), (both, "ba")):
        if edit is None:
            continue
        if "b" in sides:
            assert edit[0] in old
            old = old.replace(edit[0], edit[1])
        if "a" in sides:
            assert edit[0] in new
            new = new.replace(edit[0], edit[1])
    base = {
        "fastapi/__init__.py": "",
        "fastapi/dependencies/__init__.py": "",
        MODELS: models if models is not None else _models(),
        UTILS: old,
    }
    return analyse_commit(tmp_path, base, {UTILS: new}, "Remove get_param_sub_dependant (#14255)")


def test_the_real_commit_is_a_pure_refactor_with_its_facts_stated():
    a = corpus_analysis(CASE)
    fd = _inlined(a)
    assert fd.details["proven"] is True
    told = _site_rewrites(fd)
    assert told[("moved-assignment", "dependant")] == (
        "fastapi.dependencies.models.Dependant|fastapi/dependencies/models.py|security_scopes"
    )
    assert told[("reread-argument", "param_details.depends")] == (
        "fresh|param_details|fastapi.dependencies.utils.ParamDetails|analyze_param"
    )
    assert a.model.summary.verdict == "pure-refactor"
    text = render_markdown(a.model, "en")
    assert "the assignment of `dependant` is written where it is first needed" in text
    assert "assuming the items of `security_scopes` are `str` as annotated" in text
    assert "`param_details` is a new `fastapi.dependencies.utils.ParamDetails`" in text
    assert "中的普通 dataclass：构造它不运行其他代码" in render_markdown(a.model, "zh")


def test_replayed_from_git_the_defining_module_is_fetched_and_proves_it(tmp_path: Path):
    a = _replay(tmp_path)
    assert _inlined(a).details["proven"] is True
    assert a.model.summary.verdict == "pure-refactor"


def test_without_post_init_the_construction_needs_no_assumption(tmp_path: Path):
    models = _models().replace("\n    def __post_init__(self) -> None:\n" + POST_INIT, "\n")
    a = _replay(tmp_path, models=models)
    told = _site_rewrites(_inlined(a))
    assert told[("moved-assignment", "dependant")].endswith("models.py|")
    assert a.model.summary.verdict == "pure-refactor"


def test_a_post_init_that_calls_out_is_not_plain(tmp_path: Path):
    # Building a Dependant now registers it: moving the construction moves that call.
    models = _models().replace(POST_INIT, POST_INIT + "        print(self.call)\n")
    a = _replay(tmp_path, models=models)
    assert _inlined(a).details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


def test_a_post_init_over_items_of_any_type_is_not_plain(tmp_path: Path):
    # sorted()/set() over items that are not str may run __lt__/__hash__ or raise.
    models = _models().replace(
        "security_scopes: Optional[List[str]] = None", "security_scopes: Optional[List[Any]] = None"
    )
    a = _replay(tmp_path, models=models)
    assert _inlined(a).details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


def test_a_factory_that_is_not_a_builtin_container_is_not_plain(tmp_path: Path):
    models = _models().replace(
        'dependencies: List["Dependant"] = field(default_factory=list)',
        'dependencies: List["Dependant"] = field(default_factory=deque)',
    )
    a = _replay(tmp_path, models=models)
    assert _inlined(a).details["proven"] is False


def test_an_argument_rebound_on_the_way_keeps_it_unproven(tmp_path: Path):
    # ``use_cache = bool(use_cache)`` after the signature in both versions: the old code built
    # the Dependant from the new value, the moved construction from the caller's.
    anchor = "    signature_params = endpoint_signature.parameters\n"
    a = _replay(tmp_path, both=(anchor, anchor + "    use_cache = bool(use_cache)\n"))
    assert _inlined(a).details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


_HELPER_BODY = "    assert depends.dependency\n    return get_sub_dependant(\n"
_INLINED_BODY = "            assert param_details.depends.dependency\n            sub_dependant = get_sub_dependant(\n"
_ANALYZED = """            is_path_param=is_path_param,
        )
        if param_details.depends is not None:"""


def _log_between(escape: bool) -> dict[str, tuple[str, str]]:
    """A call between the reads of ``depends`` (the helper logs it before using it again), and
    optionally ``param_details`` handed to a function first, in both versions."""
    edits = {
        "before": (
            _HELPER_BODY,
            _HELPER_BODY.replace("    return", "    logger.debug(depends)\n    return"),
        ),
        "after": (
            _INLINED_BODY,
            _INLINED_BODY.replace(
                "            sub_dependant",
                "            logger.debug(param_details.depends)\n            sub_dependant",
            ),
        ),
    }
    if escape:
        edits["both"] = (
            _ANALYZED,
            _ANALYZED.replace("        )\n", "        )\n        remember(param_details)\n", 1),
        )
    return edits


def test_a_call_between_the_reads_is_fine_for_a_fresh_plain_instance(tmp_path: Path):
    a = _replay(tmp_path, **_log_between(escape=False))
    fd = _inlined(a)
    assert fd.details["proven"] is True
    assert _site_rewrites(fd)[("reread-argument", "param_details.depends")].startswith("fresh|")


def test_a_call_between_the_reads_of_an_escaped_instance_keeps_it_unproven(tmp_path: Path):
    # remember(param_details) may keep it; logger.debug(...) may then change .depends between
    # the old single read and the new second one.
    a = _replay(tmp_path, **_log_between(escape=True))
    assert _inlined(a).details["proven"] is False
    assert a.model.summary.verdict != "pure-refactor"


# black e7b312fb ("Simplify `mode` and `write_back` calculation in main()") moved
# ``report = Report(check=check, quiet=quiet)`` to the top of ``main``, above the source
# discovery. Trimmed to that move: the real ``Report`` and ``main`` of black.py at e7b312fb^.
_BLACK = '''import asyncio
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import List

import click
from attr import dataclass


@dataclass
class Report:
    """Provides a reformatting counter. Can be rendered with `str(report)`."""

    check: bool = False
    quiet: bool = False
    change_count: int = 0
    same_count: int = 0
    failure_count: int = 0

    def failed(self, src: Path, message: str) -> None:
        """Increment the counter for failed reformatting. Write out a message."""
        err(f"error: cannot format {src}: {message}")
        self.failure_count += 1

    @property
    def return_code(self) -> int:
        """Return the exit code that the app should use."""
        if self.failure_count:
            return 123

        elif self.change_count and self.check:
            return 1

        return 0


def main(
    ctx: click.Context,
    line_length: int,
    check: bool,
    diff: bool,
    fast: bool,
    quiet: bool,
    include: str,
    exclude: str,
    src: List[str],
) -> None:
    """The uncompromising code formatter."""
    sources: List[Path] = []
    try:
        include_regex = re.compile(include)
    except re.error:
        err(f"Invalid regular expression for include given: {include!r}")
        ctx.exit(2)
    try:
        exclude_regex = re.compile(exclude)
    except re.error:
        err(f"Invalid regular expression for exclude given: {exclude!r}")
        ctx.exit(2)
    root = find_project_root(src)
    for s in src:
        p = Path(s)
        if p.is_dir():
            sources.extend(
                gen_python_files_in_dir(p, root, include_regex, exclude_regex)
            )
        elif p.is_file() or s == "-":
            # if a file was explicitly given, we don't care about its extension
            sources.append(p)
        else:
            err(f"invalid path: {s}")

    report = Report(check=check, quiet=quiet)
    if len(sources) == 0:
        out("No paths given. Nothing to do 😴")
        ctx.exit(0)
        return

    elif len(sources) == 1:
        reformat_one(src=sources[0], line_length=line_length, fast=fast, report=report)
    else:
        loop = asyncio.get_event_loop()
        executor = ProcessPoolExecutor(max_workers=os.cpu_count())
        try:
            loop.run_until_complete(
                schedule_formatting(sources=sources, report=report, loop=loop, executor=executor)
            )
        finally:
            shutdown(loop)
        if not quiet:
            out("All done! ✨ 🍰 ✨")
            click.echo(str(report))
    ctx.exit(report.return_code)
'''
_MOVED = "    report = Report(check=check, quiet=quiet)\n"


def _black(tmp_path: Path, decorator_import: str) -> Analysis:
    before = _BLACK.replace("from attr import dataclass", decorator_import)
    after = before.replace(_MOVED, "").replace(
        '    """The uncompromising code formatter."""\n',
        '    """The uncompromising code formatter."""\n' + _MOVED,
    )
    assert after != before
    return analyse_commit(
        tmp_path, {"black.py": before}, {"black.py": after}, "Simplify main() (#300)"
    )


def _main(a: Analysis) -> Finding:
    [fd] = [f for f in a.findings if f.kind.startswith("behavior.") and f.symbol == "main"]
    return fd


def test_black_an_attrs_class_is_not_taken_for_a_plain_dataclass(tmp_path: Path):
    # attr.dataclass is attrs' auto_attribs class: not the rule's (its __init__ is attrs').
    a = _black(tmp_path, "from attr import dataclass")
    assert _main(a).kind == "behavior.changed"
    assert a.model.summary.verdict != "pure-refactor"


def test_black_the_same_move_of_a_standard_dataclass_is_proven(tmp_path: Path):
    a = _black(tmp_path, "from dataclasses import dataclass")
    fd = _main(a)
    assert fd.kind == "behavior.unchanged"
    assert fd.details["rewrites"] == [
        {"kind": "moved-assignment", "text": "report", "detail": "black.Report|black.py|"}
    ]
    assert a.model.summary.verdict == "pure-refactor"
    text = render_markdown(a.model, "en")
    assert "`black.Report` is a plain dataclass of `black.py`" in text
