"""Call sites and guard chains found by the pruned, lazily-labelled statement walks."""

from __future__ import annotations

from pathlib import Path

from prreport.config import Config, GitConfig
from prreport.findings import Finding
from prreport.pipeline import analyse, gather
from prreport.sources.git import GitSource
from tests.gitrepo import Repo

BODY = """
class Server:
    @staticmethod
    def start(cfg):
        @contextlib.contextmanager
        def opened():
            yield cfg

        try:
{import_line}            with opened() as c, stage(
                c
            ):
                pass
        except (ValueError,
                KeyError) as err:
            stage(err)
        match cfg:
            case {{"mode": "x"}} if cfg:
                log.info("%s", stage(
                    cfg))
            case _:
                pass

        def later():
            return stage(cfg)


class Other:
    def run(self, stage):
        return stage(self)  # a call of the same name outside the import's scope


def unrelated(stage_name, restage):
    # mentions of the name that are not calls of it, in code the walk may skip
    return stage_name, restage, "stage(x)"
"""


def _guards(tmp_path: Path) -> list[Finding]:
    before = "import contextlib\nimport logging\n\nlog = logging.getLogger()\n" + BODY.format(
        import_line="            from pkg.helpers import stage\n\n"
    )
    after = (
        "import contextlib\nimport logging\n\nfrom pkg.helpers import stage\n\nlog = logging.getLogger()\n"
        + BODY.format(import_line="")
    )
    repo = Repo(tmp_path / "repo")
    repo.commit(
        "init",
        {
            "pkg/__init__.py": "",
            "pkg/helpers.py": "def stage(x):\n    return x\n",
            "pkg/srv.py": before,
        },
    )
    repo.commit("refactor(pkg): hoist stage (#9)", {"pkg/srv.py": after})
    config = Config()
    analysis = analyse(gather(GitSource("9", GitConfig(repo=str(repo.path))), config), config)
    return [f for f in analysis.findings if f.kind.startswith("guard.")]


def test_every_call_site_in_headers_handlers_and_cases_keeps_its_guard_chain(tmp_path: Path):
    found = {(f.kind, f.line, f.details["call"]): f.details for f in _guards(tmp_path)}
    assert set(found) == {
        ("guard.preserved", 16, "stage(c)"),
        ("guard.preserved", 22, "stage(err)"),
        ("guard.preserved", 25, "stage(cfg)"),
        ("guard.preserved", 31, "stage(cfg)"),
    }
    chains = {
        line: [(g["kind"], g["text"]) for g in d["after"]] for (_k, line, _c), d in found.items()
    }
    assert chains == {
        16: [("try", "try / except (ValueError, KeyError)")],
        22: [("except", "except (ValueError, KeyError)")],
        25: [("if", 'match cfg: case {"mode": "x"} if cfg')],
        31: [],
    }
    # The hoist added two lines above the class and removed two inside the try.
    assert {line: [g["line"] for g in d["after"]] for (_k, line, _c), d in found.items()} == {
        16: [15],
        22: [20],
        25: [24],
        31: [],
    }
    assert {line: [g["line"] for g in d["before"]] for (_k, line, _c), d in found.items()} == {
        16: [13],
        22: [20],
        25: [24],
        31: [],
    }
    assert {line: d["scope"] for (_k, line, _c), d in found.items()} == {
        16: "Server.start",
        22: "Server.start",
        25: "Server.start",
        31: "Server.start.<locals>.later",
    }
    assert all(d["before_line"] == line for (_k, line, _c), d in found.items())
