"""``from <package> import X`` in a module the package's ``__init__`` is still running.

python-telegram-bot ce852de9: the new ``telegram/telegram_boject_base.py`` does ``from telegram
import TelegramError``; ``telegram/__init__.py`` imports ``telegram.user`` at line 8, which imports
``telegram.telegram_boject_base``, and binds ``TelegramError`` only at line 26, so ``import
telegram`` raises ``ImportError: cannot import name 'TelegramError' from partially initialized
module 'telegram'`` (checked against Python itself). Variants of the same real package: the name
bound before the chain (safe), or by an import whose module runs the importer first (risk); left
to a star import, a ``try`` or a ``__getattr__`` (unchecked); a star import after the chain
(risk); a name the ``__init__`` never binds (unchecked: it may be a generated module); an unread
``__init__`` (unchecked, and asked for); the package under a parent package
``tg`` (a grandparent's name bound after or before its chain; ``from .. import telegram``, as
trio does, is no name lookup); a generated ``_version`` import the walk cannot follow (safe when a
repository search finds no module importing the new one, unchecked when one does); an import in a
``__main__`` block (no cycle). Also real: scrapy dcf7235f (``from scrapy.commands import
ScrapyCommand``, defined before the package imports anything that could run the module) and pip
a5718f51 (``from pip import __file__``, set before any line of the package runs).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from prreport.analyzers.cycles import CycleAnalyzer
from prreport.bundle import PullRequestBundle
from prreport.config import Config
from prreport.findings import Finding
from prreport.pipeline import Analysis, analyse
from prreport.python.sources import SourceFiles
from prreport.render import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_bundle
from tests.gitrepo import analyse_commit

PTB = "python-telegram-bot-ce852de9"
BASE, INIT, ERROR = "telegram/telegram_boject_base.py", "telegram/__init__.py", "telegram/error.py"
IMPORTER = "telegram.telegram_boject_base"
# telegram/error.py at ce852de9, verbatim (the commit did not change it: not in the saved bundle).
ERROR_PY = '''#!/usr/bin/env python


class TelegramError(Exception):
    """Base class for Telegram errors."""

    @property
    def message(self):
        \'\'\'Returns the first argument used to construct this error.\'\'\'
        return self.args[0]
'''
BIND = "from .error import TelegramError\n"
CHAIN = "from .user import User\n"


def _real_init() -> str:
    text = corpus_bundle(PTB).context_files[INIT]
    assert text is not None and BIND in text and CHAIN in text
    return text


def _init(replace: str) -> str:
    """The real ``telegram/__init__.py`` with ``from .error import TelegramError`` (line 26) taken
    out and ``replace`` put before ``from .user import User`` (line 8)."""
    return _real_init().replace(BIND, "").replace(CHAIN, replace + CHAIN)


def _with_init(init: str | None) -> PullRequestBundle:
    """The real commit with another ``telegram/__init__.py`` at head (None: not fetched)."""
    b = corpus_bundle(PTB)
    context = {**b.context_files, ERROR: ERROR_PY}
    if init is None:
        del context[INIT]
    else:
        context[INIT] = init
    return dataclasses.replace(b, context_files=context)


def _cycle(a: Analysis) -> Finding:
    (fd,) = [f for f in a.findings if f.kind.startswith("cycle.") and f.symbol == "telegram"]
    assert fd.path == BASE and fd.line == 2
    return fd


def _risk_text(a: Analysis, lang: str, risk: str) -> str:
    (line,) = [ln for ln in render_markdown(a.model, lang).splitlines() if f"**{risk}**" in ln]
    return line


def test_real_commit_fails_at_import_and_the_report_names_the_chain_and_the_late_line():
    a = corpus_analysis(PTB)
    fd = _cycle(a)
    assert fd.kind == "cycle.risk"
    pi = fd.details["partial_init"]
    assert (pi["package_path"], pi["line"], pi["statement"]) == (INIT, 8, "from .user import User")
    assert pi["chain"] == ["telegram", "telegram.user", IMPORTER] and pi["conditional"] is False
    assert pi["name"] == {
        "name": "TelegramError",
        "state": "late",
        "line": 26,
        "statement": "from .error import TelegramError",
        "why": "",
    }
    assert fd.details["chain"] == [IMPORTER, "telegram", "telegram.user", IMPORTER]
    assert a.model.summary.verdict != "pure-refactor"
    en = _risk_text(a, "en", "Import cycle")
    assert (
        "`from telegram import TelegramError` at `telegram/telegram_boject_base.py:2` fails" in en
    )
    assert "`telegram/__init__.py:8` (`from .user import User`)" in en
    assert "binds `TelegramError` only later, at `telegram/__init__.py:26`" in en
    zh = _risk_text(a, "zh", "导入环")
    assert "会抛出 ImportError" in zh and "直到 `telegram/__init__.py:26`" in zh


def test_the_risk_is_what_python_does_with_the_real_files(tmp_path: Path):
    # The after tree of the commit: ``import telegram`` stops at the chain named above.
    b = corpus_bundle(PTB)
    texts = {**b.context_files, **{f.path: f.after for f in b.files}, ERROR: ERROR_PY}
    for path, text in texts.items():
        if path.startswith("telegram/") and text is not None:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
    run = subprocess.run(
        [sys.executable, "-c", "import telegram"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode != 0
    assert "cannot import name 'TelegramError' from partially initialized module" in run.stderr
    assert 'telegram_boject_base.py", line 2' in run.stderr


def test_name_bound_before_the_chain_is_safe():
    # ``from .error import TelegramError`` moved above ``from .user import User``: with this
    # __init__ the real package imports (the error module imports nothing back).
    a = analyse(_with_init(_init(BIND)), Config())
    fd = _cycle(a)
    assert fd.kind == "cycle.safe", fd.message
    pi = fd.details["partial_init"]
    # bound at line 8 by an import that does not run the module: what __init__ imports after
    # cannot matter (the walk stops there)
    assert pi["until"] == 8 and pi["line"] is None and pi["gap"] is None
    (name,) = pi["names"]
    assert (name["state"], name["line"]) == ("bound", 8)
    assert "import-cycle" not in {r["id"] for r in a.model.risks}


def test_name_bound_before_by_an_import_that_runs_the_module_first_is_a_risk():
    # Bound before the chain by name, but by an import whose module imports the importer:
    # ``TelegramError`` is bound only when that import finishes, after the module ran.
    error = ERROR_PY.replace("\n\nclass", "\nfrom .telegram_boject_base import Base\n\n\nclass")
    b = _with_init(_init(BIND))
    b = dataclasses.replace(b, context_files={**b.context_files, ERROR: error})
    fd = _cycle(analyse(b, Config()))
    assert fd.kind == "cycle.risk"
    pi = fd.details["partial_init"]
    assert pi["line"] == 8 and pi["chain"] == ["telegram", "telegram.error", IMPORTER]


@pytest.mark.parametrize(
    ("before", "why"),
    [
        ("from .error import *\n", "star"),
        (
            "try:\n    from .error import TelegramError\nexcept ImportError:\n    pass\n",
            "conditional",
        ),
        (
            "def __getattr__(name):\n"
            "    if name == 'TelegramError':\n"
            "        from .error import TelegramError\n"
            "        return TelegramError\n"
            "    raise AttributeError(name)\n",
            "getattr",
        ),
    ],
)
def test_name_the_walk_cannot_see_bound_before_the_chain_is_unchecked(before: str, why: str):
    a = analyse(_with_init(_init(before)), Config())
    fd = _cycle(a)
    assert fd.kind == "cycle.unchecked", fd.message
    assert fd.details["partial_init"]["name"]["why"] == why
    text = _risk_text(a, "en", "Import cycle not checked")
    assert (
        "for `TelegramError` imported from `telegram` at `telegram/telegram_boject_base.py:2`"
        in text
    )
    assert "`telegram` is still initialising when this module runs" in text
    words = {
        "star": "star import",
        "conditional": "only under a condition",
        "getattr": "__getattr__",
    }
    assert words[why] in text
    assert "导入环未能检查" in render_markdown(a.model, "zh")


def test_star_import_after_the_chain_is_still_too_late():
    a = analyse(_with_init(_real_init().replace(BIND, "from .error import *\n")), Config())
    fd = _cycle(a)
    assert fd.kind == "cycle.risk"
    assert fd.details["partial_init"]["name"]["line"] == 26


def _cycle_requests(b: PullRequestBundle) -> frozenset[str]:
    """The files the cycle analyzer asks the source for (other analyzers aside)."""
    return CycleAnalyzer(Config().analysis).requests(b, SourceFiles(b)).files


def test_package_init_not_read_is_unchecked_and_asked_for():
    b = _with_init(None)
    assert INIT in _cycle_requests(b)
    a = analyse(b, Config())
    fd = _cycle(a)
    assert fd.kind == "cycle.unchecked"
    assert fd.details["partial_init"]["name"]["why"] == "unread"
    assert "the package's `telegram/__init__.py` was not read" in _risk_text(
        a, "en", "Import cycle not checked"
    )


def test_git_source_reads_the_package_init_and_finds_the_risk(tmp_path: Path):
    b = corpus_bundle(PTB)
    base = {f.path: f.before for f in b.files if f.before is not None}
    context = {p: t for p, t in b.context_files.items() if p.startswith("telegram/")}
    change = {f.path: f.after for f in b.files}
    a = analyse_commit(tmp_path, {**base, **context, ERROR: ERROR_PY}, change, "base class (#1)")
    fd = _cycle(a)
    assert fd.kind == "cycle.risk" and fd.details["partial_init"]["line"] == 8


def test_package_that_defines_the_name_before_importing_anything_first_party_is_safe():
    # scrapy dcf7235f: ``from scrapy.commands import ScrapyCommand`` in the new
    # scrapy/commands/common_commands.py; scrapy/commands/__init__.py defines the class after
    # importing only scrapy.utils.conf and scrapy.exceptions, which do not import commands.
    a = corpus_analysis("scrapy-dcf7235f")
    (fd,) = [f for f in a.findings if f.kind.startswith("cycle.") and f.symbol == "scrapy.commands"]
    assert fd.kind == "cycle.safe"
    pi = fd.details["partial_init"]
    (name,) = pi["names"]
    assert name["state"] == "bound" and name["statement"].startswith("class ScrapyCommand")
    assert pi["line"] is None and pi["gap"] is None and pi["until"] >= name["line"]


def test_module_dunders_need_no_walk():
    # pip a5718f51: ``from pip import __file__ as pip_location`` (the import system sets
    # ``__file__`` before the package's first line): safe, and src/pip/__init__.py not asked for.
    b = corpus_bundle("pip-a5718f51")
    a = corpus_analysis("pip-a5718f51")
    (fd,) = [f for f in a.findings if f.kind.startswith("cycle.") and f.symbol == "pip"]
    assert fd.kind == "cycle.safe" and "partial_init" not in fd.details
    assert "src/pip/__init__.py" not in _cycle_requests(b)


def test_an_import_in_a_main_block_runs_no_cycle():
    # telegram/user.py of the commit gains ``from .telegram_boject_base import Base``; the new
    # base module imports telegram.user back only in a demo block run as ``python -m``, as
    # textual's markup.py does (``if __name__ == "__main__": from textual._markup_playground
    # import ...``): importing it runs no cycle.
    b = corpus_bundle(PTB)
    demo = '\n\nif __name__ == "__main__":\n    from telegram.user import User\n\n    print(User(1, "x"))\n'
    files = [
        dataclasses.replace(f, after=f.after + demo) if f.path == BASE and f.after else f
        for f in b.files
    ]
    a = analyse(dataclasses.replace(b, files=files), Config())
    (fd,) = [
        f
        for f in a.findings
        if f.kind.startswith("cycle.") and f.path == "telegram/user.py" and f.symbol == IMPORTER
    ]
    assert fd.kind == "cycle.safe" and fd.details["chain"] == []
    assert "telegram.user" not in fd.details["target_imports"]


def _under_tg(tmp_path: Path, tg_init: str, imports: str) -> Analysis:
    """The real commit with the package moved under a parent package ``tg`` (its
    ``__init__.py``: ``tg_init``) and ``imports`` in place of the base module's
    ``from telegram import TelegramError``, through the git source."""
    b = corpus_bundle(PTB)
    after = b.file(BASE).after if b.file(BASE) else None
    assert after is not None and "from telegram import TelegramError\n" in after
    base = {f"tg/{f.path}": f.before for f in b.files if f.before is not None}
    context = {f"tg/{p}": t for p, t in b.context_files.items() if p.startswith("telegram/")}
    change: dict[str, str | None] = {f"tg/{f.path}": f.after for f in b.files}
    change[f"tg/{BASE}"] = after.replace("from telegram import TelegramError\n", imports)
    start = {**base, **context, f"tg/{ERROR}": ERROR_PY, "tg/__init__.py": tg_init}
    return analyse_commit(tmp_path, start, change, "base class (#1)")


def _cycle_of(a: Analysis, target: str) -> Finding:
    (fd,) = [
        f
        for f in a.findings
        if f.kind.startswith("cycle.") and f.path == f"tg/{BASE}" and f.symbol == target
    ]
    return fd


def test_a_package_taken_from_its_parent_in_its_own_module_is_no_name_lookup(tmp_path: Path):
    # The base module takes its own package from the parent (``from .. import telegram``, as
    # trio's ``from .. import _core`` in trio/_core/_entry_queue.py): Python finds tg.telegram in
    # sys.modules while it is still initialising, so no name has to be bound in its __init__.
    a = _under_tg(tmp_path, "", "from .. import telegram\n" + BIND)
    fd = _cycle_of(a, "tg.telegram")
    assert fd.kind == "cycle.safe" and "partial_init" not in fd.details


@pytest.mark.parametrize("version_first", [False, True])
def test_a_name_of_the_grandparent_package_is_bound_before_its_chain_or_not(
    tmp_path: Path, version_first: bool
):
    # tg/__init__.py imports tg.telegram, whose __init__ (line 8) runs the base module, which
    # takes VERSION from tg: bound only if tg binds it before importing tg.telegram.
    bind, chain = "VERSION = '1.9'\n", "from .telegram import Bot\n"
    tg_init = bind + chain if version_first else chain + bind
    a = _under_tg(tmp_path, tg_init, "from tg import VERSION\n" + BIND)
    fd = _cycle_of(a, "tg")
    pi = fd.details["partial_init"]
    if version_first:
        assert fd.kind == "cycle.safe" and pi["names"][0]["line"] == 1
    else:
        assert fd.kind == "cycle.risk"
        assert pi["line"] == 1 and pi["names"][0]["line"] == 2
        assert pi["chain"] == ["tg", "tg.telegram", "tg.telegram.user", f"tg.{IMPORTER}"]


# A version module written at build time (setuptools-scm's ``_version.py``): not in the
# repository, so the walk of ``telegram/__init__.py`` cannot follow that first import.
GENERATED_VERSION = "from ._version import version as __version__\n"
HELPERS = '''"""Helpers for handlers."""

from telegram import TelegramError


def require(update, key):
    """The value of ``key`` in an update, or a TelegramError naming it."""
    try:
        return update[key]
    except KeyError:
        raise TelegramError("missing " + key)
'''


def _new_helpers(tmp_path: Path, change: dict[str, str | None]) -> tuple[Analysis, Finding]:
    """The parent of ce852de9 with a generated version import first in telegram/__init__.py,
    and a new module telegram/helpers.py taking ``TelegramError`` from the package."""
    b = corpus_bundle(PTB)
    start = {f.path: f.before for f in b.files if f.before is not None}
    start |= {p: t for p, t in b.context_files.items() if p.startswith("telegram/")}
    start |= {ERROR: ERROR_PY, INIT: _real_init().replace(CHAIN, GENERATED_VERSION + CHAIN)}
    a = analyse_commit(tmp_path, start, {"telegram/helpers.py": HELPERS, **change}, "helpers (#2)")
    (fd,) = [f for f in a.findings if f.kind.startswith("cycle.") and f.symbol == "telegram"]
    assert fd.path == "telegram/helpers.py"
    return a, fd


def test_a_module_nothing_imports_runs_after_the_package_whatever_the_walk_missed(
    tmp_path: Path,
):
    # The walk stops at the generated module; a search of the repository finds no module that
    # imports telegram.helpers, so telegram/__init__.py has finished before it runs.
    a, fd = _new_helpers(tmp_path, {})
    assert fd.kind == "cycle.safe", fd.message
    pi = fd.details["partial_init"]
    assert pi["gap"] == 8 and pi["unimported"] is True
    assert [n["state"] for n in pi["names"]] == ["finished"]
    assert "no module imports this one at module level" in render_markdown(a.model, "en")
    assert "仓库中没有模块在模块级导入本模块" in render_markdown(a.model, "zh")


def test_a_module_the_package_may_import_before_binding_the_name_is_unchecked(tmp_path: Path):
    # telegram/bot.py now imports the helpers: a module does import them, so the search proves
    # nothing, and whether the generated module (line 8) imports them before TelegramError is
    # bound (line 27) cannot be told. (bot.py itself runs at line 29, when it is bound.)
    bot = corpus_bundle(PTB).context_files["telegram/bot.py"]
    assert bot is not None and "\nimport json\n" in bot
    bot = bot.replace("\nimport json\n", "\nimport json\nfrom .helpers import require\n", 1)
    _a, fd = _new_helpers(tmp_path, {"telegram/bot.py": bot})
    assert fd.kind == "cycle.unchecked", fd.message
    pi = fd.details["partial_init"]
    assert (pi["gap"], pi["until"], pi["unimported"]) == (8, 27, False)
    assert pi["name"]["why"] == "walk"


def test_a_name_the_package_never_binds_may_be_a_module_not_in_the_tree():
    # ``from telegram import _version``: telegram/__init__.py never binds ``_version``, and no
    # telegram/_version.py is in the tree; one written at build time (setuptools-scm) would be
    # imported by that line, not looked up: unchecked, not a risk.
    b = corpus_bundle(PTB)
    files = [
        dataclasses.replace(f, after=f.after.replace("import TelegramError", "import _version"))
        if f.path == BASE and f.after
        else f
        for f in b.files
    ]
    a = analyse(dataclasses.replace(b, files=files), Config())
    fd = _cycle(a)
    assert fd.kind == "cycle.unchecked", fd.message
    assert fd.details["partial_init"]["name"]["why"] == "unbound"
    assert "never binds it: it may be a module that is not in the repository" in _risk_text(
        a, "en", "Import cycle not checked"
    )
