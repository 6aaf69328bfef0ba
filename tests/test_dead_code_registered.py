"""A removed definition its decorator registered, or that a tool reads by name, is not dead code.

First contact with cohort 3 gave one false ``pure-refactor``: jsonschema cebe4c7a deletes the
``audit`` nox session, a function no code names — ``@session()`` registered it when the noxfile
ran, and ``nox -s audit`` is gone. Sphinx reads every name of ``conf.py`` the same way
(gunicorn 58d80397). A decorator that only wraps (``staticmethod``, ``property``,
``abc.abstractmethod``) registers nothing: such a definition can still be dead.
"""

from __future__ import annotations

from pathlib import Path

from prreport.pipeline import Analysis
from tests.corpus_texts import corpus_analysis
from tests.gitrepo import analyse_commit


def _dead(a: Analysis) -> list[str]:
    return sorted(f.symbol for f in a.findings if f.kind == "code.dead-removed")


def _live(a: Analysis) -> dict[str, tuple[str, str]]:
    return {
        f.symbol: (f.details["called_by"], f.details["caller"])
        for f in a.findings
        if f.kind == "behavior.changed" and f.details.get("removed") is True
    }


def test_the_removed_nox_session_of_jsonschema_is_a_behaviour_change():
    a = corpus_analysis("jsonschema-cebe4c7a")
    assert a.model.summary.verdict != "pure-refactor"
    assert "audit" not in _dead(a)
    assert _live(a)["audit"] == ("decorator", "@session()")


def test_names_of_a_sphinx_conf_py_are_read_by_sphinx():
    a = corpus_analysis("gunicorn-58d80397")
    assert not [s for s in _dead(a) if s in ("templates_path", "source_suffix", "master_doc")]
    assert _live(a)["master_doc"] == ("tool", "Sphinx (conf.py)")


_BASE = {
    "pkg/__init__.py": "",
    "pkg/tasks.py": (
        "import abc\n"
        "from pkg.registry import command\n\n\n"
        "@command('sync')\n"
        "def sync():\n    return 1\n\n\n"
        "def unused():\n    return 2\n\n\n"
        "class Box:\n"
        "    @staticmethod\n"
        "    def helper():\n        return 3\n\n"
        "    def keep(self):\n        return 4\n"
    ),
    "pkg/registry.py": "COMMANDS = {}\n\n\ndef command(name):\n    def add(fn):\n        COMMANDS[name] = fn\n        return fn\n    return add\n",
    "pkg/use.py": "from pkg.tasks import Box\n\n\ndef run():\n    return Box().keep()\n",
}


def test_a_registering_decorator_keeps_a_definition_live_and_a_wrapping_one_does_not(
    tmp_path: Path,
):
    after = (
        "import abc\n"
        "from pkg.registry import command\n\n\n"
        "class Box:\n"
        "    def keep(self):\n        return 4\n"
    )
    a = analyse_commit(tmp_path, _BASE, {"pkg/tasks.py": after})
    assert _dead(a) == [
        "Box.helper",
        "unused",
    ]  # nothing names them; staticmethod registers nothing
    assert _live(a) == {"sync": ("decorator", "@command('sync')")}
    assert a.model.summary.verdict != "pure-refactor"
