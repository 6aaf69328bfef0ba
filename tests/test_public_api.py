"""Public API changes (issue 29): real-shaped packages committed to real git repositories and run
through the git source and the whole pipeline; griffe reads both snapshots statically."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.pipeline import Analysis, analyse, gather
from prreport.python.libraryfiles import located
from prreport.render.html import render_html
from prreport.render.json import render_json
from prreport.render.markdown import render_markdown
from prreport.sources.git import GitSource
from tests.gitrepo import Repo
from tests.schemacheck import check

PYPROJECT = '[project]\nname = "shop"\nrequires-python = ">=3.10"\n'
INIT = '''"""A small HTTP client library."""

from .client import Client, Session
from .errors import ShopError

__all__ = ["Client", "Session", "ShopError", "connect"]


def connect(url, timeout=30, *, retries=3):
    """Open a client on ``url``."""
    return Client(url, timeout=timeout, retries=retries)
'''
CLIENT = '''"""The client and its sessions."""

from .errors import ShopError

__all__ = ["Client", "Session", "open_session"]


class Closeable:
    def close(self):
        return None


class Session(Closeable):
    def __init__(self, client):
        self.client = client

    def get(self, path, params=None):
        return self.client.request("GET", path, params)


class Client:
    def __init__(self, url, timeout=30, retries=3):
        self.url = url
        self.timeout = timeout
        self.retries = retries

    def request(self, method, path, params=None):
        if not path.startswith("/"):
            raise ShopError(path)
        return (method, self.url + path, params, self.timeout)

    def close(self, force=False):
        return force


def open_session(client):
    return Session(client)


def _sign(request, key):
    return (request, key)


def unlisted(value):
    return value
'''
ERRORS = '''class ShopError(Exception):
    """Raised for a bad request."""
'''
TEST = """from shop.client import Client


def make_client(url="http://x", timeout=5):
    return Client(url, timeout)


def test_request():
    assert make_client().request("GET", "/a")[0] == "GET"
"""
BASE = {
    "pyproject.toml": PYPROJECT,
    "src/shop/__init__.py": INIT,
    "src/shop/client.py": CLIENT,
    "src/shop/errors.py": ERRORS,
    "tests/test_client.py": TEST,
}


def _run(
    tmp_path: Path,
    change: dict[str, str | None],
    base: dict[str, str | None] | None = None,
    **analysis,
) -> Analysis:
    repo = Repo(tmp_path / "repo")
    repo.commit("init", base or BASE)
    repo.commit("refactor(shop): tidy the client (#7)", change)
    cfg = Config()
    if analysis:
        cfg = dataclasses.replace(cfg, analysis=dataclasses.replace(cfg.analysis, **analysis))
    src = GitSource("7", GitConfig(repo=str(repo.path)))
    try:
        return analyse(gather(src, cfg), cfg)
    finally:
        src.close()


def _api(an: Analysis) -> list[tuple[str, str]]:
    return [
        (f.kind, f.symbol)
        for f in an.model.findings
        if f.kind.startswith("api.") and f.kind not in ("api.unchanged", "api.unchecked")
    ]


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new)


# --- names kept ---------------------------------------------------------------------------------


def test_a_class_moved_with_a_re_export_left_is_no_change(tmp_path: Path):
    session = CLIENT[CLIENT.index("class Session") : CLIENT.index("class Client:")]
    client = _replace(CLIENT, session, "")
    client = _replace(
        client,
        "from .errors import ShopError\n",
        "from .errors import ShopError\nfrom .session import Session\n",
    )
    an = _run(
        tmp_path,
        {
            "src/shop/client.py": client.replace(
                "class Closeable", "from .base import Closeable\n\n\nclass _Unused"
            ),
            "src/shop/base.py": "class Closeable:\n    def close(self):\n        return None\n",
            "src/shop/session.py": "from .base import Closeable\n\n\n" + session,
        },
    )
    assert _api(an) == []
    assert any(f.kind == "symbol.moved" and f.symbol == "Session" for f in an.model.findings)
    api = an.model.public_api
    assert api["status"] == "unchanged"
    assert api["packages"][0]["package"] == "shop"
    md = render_markdown(an.model, "en")
    assert "# Public API\n\nUnchanged: no name `shop` declares public" in md
    assert "未变：`shop` 声明为公共的名称" in render_markdown(an.model, "zh")


def test_a_rename_that_keeps_the_old_name_as_an_alias_is_no_change(tmp_path: Path):
    client = _replace(CLIENT, "def open_session(client):", "def start_session(client):")
    client = _replace(
        client,
        "    return Session(client)\n",
        "    return Session(client)\n\n\nopen_session = start_session\n",
    )
    client = _replace(client, '"open_session"]', '"open_session", "start_session"]')
    an = _run(tmp_path, {"src/shop/client.py": client})
    assert _api(an) == []
    assert an.model.public_api["status"] == "unchanged"


def test_a_method_pulled_up_into_a_base_class_is_not_removed(tmp_path: Path):
    client = _replace(CLIENT, "class Client:", "class Client(Closeable):")
    client = _replace(client, "    def close(self, force=False):\n        return force\n", "")
    client = _replace(
        client,
        "    def close(self):\n        return None\n",
        "    def close(self, force=False):\n        return force\n",
    )
    an = _run(tmp_path, {"src/shop/client.py": client})
    assert ("api.removed", "shop.client.Client.close") not in _api(an)
    assert _api(an) == []


# --- names and signatures broken ----------------------------------------------------------------


def test_a_definition_moved_without_a_re_export_is_removed_for_callers(tmp_path: Path):
    opener = "def open_session(client):\n    return Session(client)\n"
    client = _replace(CLIENT, opener, "")
    client = _replace(
        client, '__all__ = ["Client", "Session", "open_session"]', '__all__ = ["Client", "Session"]'
    )
    an = _run(
        tmp_path,
        {
            "src/shop/client.py": client,
            "src/shop/sessions.py": '__all__ = ["open_session"]\n\nfrom .client import Session\n\n\n'
            + opener,
        },
    )
    found = [f for f in an.model.findings if f.kind == "api.removed"]
    assert [(f.symbol, f.path, f.details["side"]) for f in found] == [
        ("shop.client.open_session", "src/shop/client.py", "-")
    ]
    assert found[0].line == CLIENT.splitlines().index("def open_session(client):") + 1
    assert found[0].details["moved_to"] == "shop.sessions.open_session"
    assert an.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")
    md = render_markdown(an.model, "en")
    assert (
        "public name `shop.client.open_session` removed: now defined at `shop.sessions.open_session`"
        in md
    )
    verdict = next(line for line in md.splitlines() if line.startswith("- **Verdict**"))
    assert "`shop.client.open_session`" in verdict  # the behaviour change names its witness
    zh = render_markdown(an.model, "zh")
    assert "公共名称 `shop.client.open_session` 被删除" in zh


def test_signature_changes_are_witnesses_named_in_the_verdict(tmp_path: Path):
    init = _replace(
        INIT,
        "def connect(url, timeout=30, *, retries=3):",
        "def connect(url, timeout=60, *, retries=3):",
    )
    client = _replace(
        CLIENT, "    def get(self, path, params=None):", "    def get(self, path, params):"
    )
    client = _replace(
        client,
        "    def close(self, force=False):\n        return force",
        "    def close(self):\n        return True",
    )
    client = _replace(client, "class Session(Closeable):", "class Session:")
    an = _run(tmp_path, {"src/shop/__init__.py": init, "src/shop/client.py": client})
    assert sorted(_api(an)) == [
        ("api.base-removed", "shop.client.Session"),
        ("api.default-changed", "shop.connect"),
        ("api.parameter-removed", "shop.client.Client.close"),
        ("api.parameter-required", "shop.client.Session.get"),
        ("api.removed", "shop.client.Session.close"),  # it inherited close from Closeable
    ]
    default = next(f for f in an.model.findings if f.kind == "api.default-changed")
    assert (default.details["parameter"], default.details["before"], default.details["after"]) == (
        "timeout",
        "30",
        "60",
    )
    assert (default.path, default.line) == ("src/shop/__init__.py", 9)
    assert an.model.summary.verdict in ("behavior-change", "refactor-with-behavior-change")
    witnesses = an.model.summary.headline["witnesses"]
    assert any(
        w["finding"] == "api.default-changed" and w["symbol"] == "shop.connect" for w in witnesses
    )
    md = render_markdown(an.model, "en")
    assert (
        "the default of `timeout` of `shop.connect` changed from `30` to `60` (`shop/__init__.py:9`)"
        in md
    )
    assert "`shop.client.Session` no longer derives from `Closeable`" in md
    assert "the parameter `params` of `shop.client.Session.get` is now required" in md
    section = md.split("# Public API", 1)[1].split("\n# ", 1)[0]
    assert section.count("\n- ") == 5
    html = render_html(an.model, "en", md)
    assert "Public API" in html and "shop.connect" in html
    data = json.loads(render_json(an.model))
    check(data, "public api report")
    assert data["public_api"]["status"] == "changed"
    assert len(data["public_api"]["changes"]) == 5
    assert "`shop.connect` 的参数 `timeout` 默认值由 `30` 改为 `60`" in render_markdown(
        an.model, "zh"
    )


def test_a_name_re_exported_from_a_private_module_is_named_by_its_public_path(tmp_path: Path):
    base = {
        "pyproject.toml": PYPROJECT,
        "src/shop/__init__.py": 'from ._core import checkout\n\n__all__ = ["checkout"]\n',
        "src/shop/_core.py": "def checkout(cart, currency='EUR'):\n    return (cart, currency)\n",
    }
    an = _run(
        tmp_path,
        {"src/shop/_core.py": "def checkout(cart, currency='USD'):\n    return (cart, currency)\n"},
        base,
    )
    assert _api(an) == [("api.default-changed", "shop.checkout")]


# --- what never counts --------------------------------------------------------------------------


def test_private_unlisted_and_test_names_give_nothing(tmp_path: Path):
    client = _replace(CLIENT, "def _sign(request, key):", "def _sign(request, key, algorithm):")
    client = _replace(client, "def unlisted(value):\n    return value\n", "")  # not in __all__
    client = _replace(
        client,
        "    def request(self, method, path, params=None):",
        "    def request(self, method, path, params=None, _trace=False):",
    )
    test = _replace(TEST, 'def make_client(url="http://x", timeout=5):', "def make_client(url):")
    for scope in ("declared", "names"):
        an = _run(
            tmp_path / scope,
            {
                "src/shop/client.py": client,
                "tests/test_client.py": test.replace("make_client()", 'make_client("http://x")'),
            },
            public_api=scope,
        )
        assert _api(an) == [], scope


def test_names_a_package_does_not_declare_count_only_under_the_names_scope(tmp_path: Path):
    base = {
        **BASE,
        "src/shop/util.py": "def slugify(text, sep='-'):\n    return text.replace(' ', sep)\n",
    }
    change = {
        "src/shop/util.py": "def slugify(text, sep='_'):\n    return text.replace(' ', sep)\n"
    }
    assert _api(_run(tmp_path / "declared", change, base)) == []
    names = _run(tmp_path / "names", change, base, public_api="names")
    assert _api(names) == [("api.default-changed", "shop.util.slugify")]


def test_a_default_that_is_not_a_literal_is_not_claimed_changed(tmp_path: Path):
    base = {
        **BASE,
        "src/shop/limits.py": '__all__ = ["wait"]\nDEFAULT = 30\nTIMEOUT = 30\n\n\ndef wait(seconds=DEFAULT):\n    return seconds\n',
    }
    change = {
        "src/shop/limits.py": base["src/shop/limits.py"].replace(
            "seconds=DEFAULT", "seconds=TIMEOUT"
        )
    }
    assert _api(_run(tmp_path, change, base)) == []


def test_dropping_object_as_a_base_is_no_change(tmp_path: Path):
    errors = 'class Retry(object):\n    """A retry policy."""\n\n    def __init__(self, times=3):\n        self.times = times\n'
    base = {**BASE, "src/shop/errors.py": ERRORS + "\n\n" + errors}
    change = {"src/shop/errors.py": ERRORS + "\n\n" + errors.replace("(object)", "")}
    an = _run(
        tmp_path,
        change,
        {
            **base,
            "src/shop/__init__.py": INIT.replace('"ShopError",', '"ShopError", "Retry",').replace(
                "import ShopError", "import Retry, ShopError"
            ),
        },
    )
    assert _api(an) == []


def test_a_file_that_does_not_parse_is_a_diagnostic_not_a_removal(tmp_path: Path):
    an = _run(tmp_path, {"src/shop/client.py": CLIENT + "\ndef broken(:\n    pass\n"})
    assert _api(an) == []
    assert any(d.origin == "parser" and d.path == "src/shop/client.py" for d in an.diagnostics)
    assert an.model.summary.verdict == "unknown"
    assert not [d for d in an.diagnostics if "analyzer failed" in d.message]


def test_the_check_can_be_turned_off(tmp_path: Path):
    init = _replace(INIT, "timeout=30, *", "timeout=60, *")
    an = _run(tmp_path, {"src/shop/__init__.py": init}, disabled=("public-api",))
    assert _api(an) == []
    assert an.model.public_api["status"] == "disabled"
    assert "Not checked: the `public-api` analyzer is disabled" in render_markdown(an.model, "en")


def test_only_test_changes_say_no_public_module_changed(tmp_path: Path):
    an = _run(
        tmp_path,
        {"tests/test_client.py": TEST + "\n\ndef test_more():\n    assert make_client()\n"},
    )
    assert an.model.public_api["status"] == "no-public-change"
    assert "未检查" not in render_markdown(an.model, "zh")
    assert "库的公共模块没有改动" in render_markdown(an.model, "zh")


def test_which_files_are_library_api():
    heads = [
        "src/shop/__init__.py",
        "src/shop/sub/__init__.py",
        "src/ns/pkg/__init__.py",
        "pkg/__init__.py",
    ]
    assert located("src/shop/sub/mod.py", heads).module == "shop.sub.mod"
    assert located("src/ns/pkg/mod.py", heads).module == "ns.pkg.mod"  # a namespace package
    assert located("pkg/__init__.py", heads).module == "pkg"
    for path in (
        "tests/test_x.py",
        "src/shop/tests/test_y.py",
        "docs/conf.py",
        "examples/demo.py",
        "benchmarks/bench.py",
        "setup.py",
        "noxfile.py",
        "scripts/release.py",
        "src/shop/__main__.py",
        "conftest.py",
        "../escape.py",
    ):
        assert located(path, heads) is None, path


def test_a_module_griffe_cannot_read_is_unchecked_never_removed(tmp_path: Path):
    # PEP 695 syntax: prreport reads it on any Python (the parse door lowers it); griffe parses
    # with the running Python, so before 3.12 it cannot read the after side.
    base = {
        **BASE,
        "src/shop/picks.py": '__all__ = ["first"]\n\n\ndef first(items):\n    return items[0]\n',
    }
    change = {
        "src/shop/picks.py": '__all__ = ["first"]\n\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n'
    }
    an = _run(tmp_path, change, base)
    assert _api(an) == []
    unchecked = [f for f in an.model.findings if f.kind == "api.unchecked"]
    if sys.version_info < (3, 12):
        assert [(f.path, f.details["reason"]) for f in unchecked] == [
            ("src/shop/picks.py", "after-unreadable")
        ]
        assert an.model.public_api["status"] == "unchecked"
        assert "Not compared: `src/shop/picks.py`" in render_markdown(an.model, "en")
    else:
        assert unchecked == []
