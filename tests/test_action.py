"""The recommended action has content: spots to look at and why, and what to do next."""

from __future__ import annotations

from prreport.findings import Finding
from prreport.report.summary import action_of


def guard(path: str, line: int, symbol: str, ifs: list[str]) -> Finding:
    after = [{"kind": "loop", "text": "while True", "line": 1}] + [
        {"kind": "if", "text": t, "line": line - 1} for t in ifs
    ]
    return Finding("guard.preserved", path, line, symbol, "kept", {"after": after, "before": after})


def test_a_feature_flag_at_one_call_site_and_not_the_other_is_a_spot():
    findings = [
        guard(
            "nixl/conn.py", 35, "handle_watermark_msg", ['msg[0] == b"W"', "self.enable_staging"]
        ),
        guard("mooncake/conn.py", 37, "handle_watermark_msg", ['room == "W"']),
        guard("nixl/conn.py", 40, "handle_staging_rsp", ['msg[0] == b"S"', "self.enable_staging"]),
        guard("mooncake/conn.py", 42, "handle_staging_rsp", ['room == "S"']),
    ]
    (spot,) = action_of([], findings)["look_at"]
    assert spot["what"] == "guard-asymmetry" and spot["flag"] == "self.enable_staging"
    assert spot["symbols"] == ["handle_staging_rsp", "handle_watermark_msg"]
    assert spot["guarded"] == [{"path": "nixl/conn.py", "lines": [35, 40]}]
    assert spot["unguarded"] == [{"path": "mooncake/conn.py", "lines": [37, 42]}]


def test_dispatch_conditions_that_differ_in_spelling_are_not_a_spot():
    findings = [
        guard("a.py", 5, "handle", ['room == "W"']),
        guard("b.py", 9, "handle", ['msg[0] == b"W"']),
    ]
    assert action_of([], findings)["look_at"] == []


def test_next_steps_name_the_contract_the_hoist_relies_on_and_the_rest_of_the_hoist():
    contract = Finding(
        "contract.implicit",
        "pkg/leaf.py",
        None,
        "pkg.leaf",
        "safe while",
        {"module": "pkg.leaf", "forbidden": ["pkg"]},
    )
    lazy = Finding("lazy-import.retained", "pkg/a.py", 7, "decode", "kept", {"reason": "hoistable"})
    hoisted = Finding("import.hoisted", "pkg/a.py", 1, "json", "hoisted", {"module": "json"})
    elsewhere = Finding(
        "lazy-import.retained", "pkg/c.py", 9, "yaml", "kept", {"reason": "hoistable"}
    )
    named = Finding(
        "lazy-import.retained",
        "pkg/b.py",
        3,
        "hook",
        "kept",
        {"reason": "platform-guard", "named_in_description": True},
    )
    risks = [{"id": "no-tests", "severity": "low", "evidence": []}]
    # a PR that hoists nothing is not asked to hoist more
    assert "extend-hoist" not in [
        s["what"] for s in action_of(risks, [contract, lazy, named])["next_steps"]
    ]
    action = action_of(risks, [contract, hoisted, lazy, named, elsewhere])
    assert action["level"] == "skim"
    # an import-only PR gets the contract's test, not a generic "add a test" (issue 32 §5)
    assert [s["what"] for s in action["next_steps"]] == ["add-contract", "extend-hoist"]
    changed = Finding("behavior.changed", "pkg/a.py", 9, "run", "changed", {})
    assert action_of(risks, [contract, hoisted, changed])["next_steps"][-1]["what"] == "add-tests"
    assert action["next_steps"][0]["forbidden"] == ["pkg"]
    assert action["next_steps"][1]["names"] == ["decode"]  # not yaml: that file hoists nothing
    assert [x["what"] for x in action["look_at"]] == ["kept-lazy"]


def test_an_unverified_cycle_check_is_never_safe_to_skim():
    unchecked = Finding("cycle.unchecked", "pkg/a.py", 3, "pkg.b", "not verified", {})
    risks = [
        {
            "id": "cycle-unchecked",
            "severity": "medium",
            "evidence": [{"path": "pkg/a.py", "line": 3}],
        }
    ]
    action = action_of(risks, [unchecked])
    assert action["level"] == "review"
    assert action["look_at"][0]["what"] == "cycle-unchecked"
