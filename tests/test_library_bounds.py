"""The private internals of PyGithub and urllib3 that the GitHub source subclasses or reads are
still where it expects them (issue 36), and the dependency bounds say so (``PyGithub<3``,
``urllib3<3``). A failure here means an upgrade moved them: the cache, the deadlines or the
listing's fields would silently stop working, so it fails loudly, naming what moved."""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _moved(what: str, user: str) -> str:
    return (
        f"LIBRARY INTERNALS MOVED: {what} (used by {user}). Update that code for the new "
        "release, or tighten the bound in pyproject.toml and action/requirements.txt."
    )


def test_pyproject_bounds_the_libraries_whose_internals_are_used():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    specs = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].lower(): d for d in deps}
    assert "<3" in specs["pygithub"], specs["pygithub"]
    assert "<3" in specs["urllib3"], specs["urllib3"]
    from importlib.metadata import version

    for name in ("PyGithub", "urllib3"):
        assert int(version(name).split(".")[0]) < 3, _moved(f"{name} {version(name)}", "bounds")


def test_pygithub_requester_keeps_its_per_instance_connection_class():
    from github import Auth, Github
    from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass

    gh = Github(auth=Auth.Token("t"), base_url="http://127.0.0.1:9", lazy=True)
    try:
        assert hasattr(gh.requester, "_Requester__connectionClass"), _moved(
            "Requester.__connectionClass", "prreport/sources/github/http.py install_transport"
        )
    finally:
        gh.close()
    for cls in (HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass):
        conn = cls("127.0.0.1", 9, retry=None, pool_size=3)
        for attr in ("session", "retry", "pool_size"):
            assert hasattr(conn, attr), _moved(
                f"{cls.__name__}.{attr}", "http.py _connection_classes"
            )
        conn.close()


def test_pygithub_objects_keep_the_listed_json_and_the_retry_hooks():
    from github import Auth, Github
    from github.GithubRetry import GithubRetry
    from github.PullRequest import PullRequest

    gh = Github(auth=Auth.Token("t"), base_url="http://127.0.0.1:9", lazy=True)
    pr = gh.create_from_raw_data(PullRequest, {"number": 1, "draft": True})
    gh.close()
    assert getattr(pr, "_rawData", None) == {"number": 1, "draft": True}, _moved(
        "GithubObject._rawData", "prreport/sources/github/window.py _listed, api.py"
    )
    retry = GithubRetry(total=1, max_rate_limit_wait=5)
    for attr in ("max_rate_limit_wait", "new", "increment", "sleep", "get_backoff_time"):
        assert hasattr(retry, attr), _moved(f"GithubRetry.{attr}", "client.py _BudgetRetry")
    params = inspect.signature(GithubRetry.__init__).parameters
    assert "secondary_rate_wait" in params or "kwargs" in params, _moved(
        "GithubRetry(secondary_rate_wait=...)", "client.py new_client"
    )


def test_urllib3_connection_pools_keep_make_request():
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from urllib3.util.retry import Retry

    for pool in (HTTPConnectionPool, HTTPSConnectionPool):
        method = getattr(pool, "_make_request", None)
        assert callable(method), _moved(f"{pool.__name__}._make_request", "http.py _deadline_pool")
        names = list(inspect.signature(method).parameters)
        assert names[:4] == ["self", "conn", "method", "url"], _moved(
            f"{pool.__name__}._make_request{tuple(names)}", "http.py _deadline_pool"
        )
    assert "backoff_max" in inspect.signature(Retry.__init__).parameters, _moved(
        "Retry(backoff_max=...)", "client.py new_client"
    )


@pytest.mark.parametrize("name", ["pygithub", "urllib3"])
def test_the_lock_holds_a_release_inside_the_bounds(name):
    text = (ROOT / "action" / "requirements.txt").read_text(encoding="utf-8")
    m = re.search(rf"^{name}==(\d+)\.", text, re.M)
    assert m and int(m.group(1)) < 3, name
