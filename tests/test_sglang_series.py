"""The sglang series shapes of issue #15, rebuilt (tests/fixtures/sglang_series.py): the mixin
hoist (#35948), the dropped placeholder overrides (#35950) and the early-return collapse
(#35847), each with the look-alikes that must not be claimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from prreport.pipeline import Analysis
from tests.fixtures import sglang_series as S
from tests.gitrepo import analyse_commit


def _run(tmp_path: Path, pr: str, variant: str = "") -> Analysis:
    base, change = getattr(S, f"pr_{pr}")(variant)
    a = analyse_commit(tmp_path, base, change, message=f"refactor(disagg): series shape (#{pr})")
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message], a.diagnostics
    return a


def _of(a: Analysis, kind: str) -> list:
    return sorted((f for f in a.findings if f.kind == kind), key=lambda f: f.symbol)


def test_35948_method_hoisted_into_a_mixin_across_files_is_pure(tmp_path: Path):
    a = _run(tmp_path, "35948")
    [fd] = _of(a, "code.extracted")
    assert fd.symbol == "StagingManagerMixin._handle_staging_req"
    assert fd.path == f"{S.PKG}/common/staging_handler.py"
    assert fd.details["home_kind"] == "mixin"
    assert fd.details["method"] == "_handle_staging_req"
    assert fd.details["former_owners"] == ["MooncakeKVManager", "NixlKVManager"]
    assert all(s["inherits_new_home"] and not s["shadowed_by"] for s in fd.details["sites"])
    # The changed ``class`` lines and the import of the mixin are explained too.
    after = S.pr_35948()[1][f"{S.PKG}/mooncake/conn.py"].splitlines()
    class_line = next(
        i for i, ln in enumerate(after, 1) if ln.startswith("class MooncakeKVManager")
    )
    assert (f"{S.PKG}/mooncake/conn.py", "+", class_line) in fd.explains
    assert _of(a, "behavior.changed") == []
    assert a.model.summary.verdict == "pure-refactor"


def test_35948_mixin_shadowed_by_an_earlier_base_is_a_behaviour_change(tmp_path: Path):
    a = _run(tmp_path, "35948", "shadowed")
    [fd] = _of(a, "code.extracted")
    assert fd.details["behavior_change"] is True
    assert {s["shadowed_by"] for s in fd.details["sites"]} == {
        "CommonKVManager._handle_staging_req"
    }
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_35950_every_placeholder_override_reported_with_its_base_and_subclasses(tmp_path: Path):
    a = _run(tmp_path, "35950")
    found = _of(a, "code.override-removed")
    assert [f.symbol for f in found] == [
        "CommonKVReceiver.failure_exception",
        "CommonKVReceiver.poll",
    ]
    for f in found:
        assert f.details["declared_by"] == f"BaseKVReceiver.{f.details['method']}"
        assert f.details["base_abstract"] is True
        assert [o.rsplit(":", 1)[1] for o in f.details["overridden_by"]] == [
            "MooncakeKVReceiver",
            "NixlKVReceiver",
        ]
        assert f.details["relied_on_by"] == []
        assert f.details["behavior_change"] is False
    # An override the base answers for is not dead code, however unreferenced it looks.
    assert _of(a, "code.dead-removed") == []
    assert a.model.summary.verdict == "pure-refactor"


@pytest.mark.parametrize(
    ("variant", "relying", "methods"),
    [
        ("super", "NixlKVReceiver", {"CommonKVReceiver.poll"}),
        ("fake", "FakeKVReceiver", {"CommonKVReceiver.poll", "CommonKVReceiver.failure_exception"}),
    ],
)
def test_35950_a_subclass_relying_on_the_dropped_body_is_named(
    tmp_path: Path, variant: str, relying: str, methods: set[str]
):
    a = _run(tmp_path, "35950", variant)
    changed = {f.symbol: f for f in _of(a, "code.override-removed") if f.details["behavior_change"]}
    assert set(changed) == methods
    for f in changed.values():
        assert [r.rsplit(":", 1)[1] for r in f.details["relied_on_by"]] == [relying]
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_35847_early_return_collapse_is_not_called_pure(tmp_path: Path):
    """KVARGS for a backend outside the chain used to raise and now returns KVArgs."""
    a = _run(tmp_path, "35847")
    assert a.model.summary.verdict != "pure-refactor"
    assert [f.symbol for f in _of(a, "behavior.changed")] == ["get_kv_class"]


def test_35847_early_return_collapse_names_the_inputs_answered_differently(tmp_path: Path):
    a = _run(tmp_path, "35847")
    [fd] = _of(a, "code.branches-collapsed")
    assert fd.symbol == "get_kv_class"
    assert fd.details["pattern"] == "early-return"
    assert (fd.details["subject"], fd.details["value"]) == ("class_type", "KVClassType.KVARGS")
    # Every backend of the chain already answered KVArgs for KVARGS: only the backends outside
    # the chain, which used to raise, are answered differently.
    when = (
        "class_type == KVClassType.KVARGS and transfer_backend not in "
        "(TransferBackend.MOONCAKE, TransferBackend.NIXL, TransferBackend.FAKE)"
    )
    assert fd.details["inputs"] == [
        {
            "when": when,
            "before": "raise ValueError(f'Unsupported transfer backend: {transfer_backend}')",
            "after": "return KVArgs",
            # prefill.py asks for the manager and the sender (tests/test_callers_reach.py)
            "callers": {
                "argument": "class_type=KVClassType.KVARGS",
                "calls": 2,
                "passing": 0,
                "example": "",
                "status": "none",
            },
        }
    ]
    assert fd.details["behavior_change"] is True
    # The function's behaviour change is counted, with those inputs, not as a generic change.
    [changed] = [f for f in a.model.findings if f.kind == "behavior.changed"]
    assert changed.symbol == "get_kv_class"
    assert changed.details["inputs"] == fd.details["inputs"]
    assert not changed.details.get("accounted_by")
    assert a.model.summary.verdict == "refactor-with-behavior-change"
