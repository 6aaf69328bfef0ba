"""A method hoisted into a mixin or base class (issue #15, shape 1) on real commits of the corpus:
astroid 3defafe1 (the empty ``get_children`` of 14 node classes moved to ``NoChildrenMixin``,
pure); scrapy dcf7235f (``add_options``/``process_options`` of two commands moved to
``CommonCommands``, one of them edited on the way); astroid 267ed99d (``_BaseContainer``, one copy
spelling its helper ``node_classes.const_factory``); python-telegram-bot ce852de9 (``__str__`` of
14 classes in 14 files moved to a new ``Base`` that brings other members too).

The look-alikes are those real modules with one part changed: the mixin listed after a base that
defines the method, after an unrelated base, after a base that does not resolve; a body calling
``super()``; a global that means another object in the base's module; a ``Base`` holding only
``__str__`` (pure), declaring an attribute, existing before with another member, or gaining a
slotted subclass; a mixin taking a second method from only two of its users."""

from __future__ import annotations

import re
from pathlib import Path

from prreport.findings import Finding
from prreport.pipeline import Analysis
from prreport.render.markdown import render_markdown
from tests.corpus_texts import corpus_analysis, corpus_bundle, corpus_text
from tests.gitrepo import analyse_commit

ASTROID = "astroid-3defafe1"
NODES = "astroid/node_classes.py"
MIXINS = "astroid/mixins.py"
NAME_AFTER = "class Name(mixins.NoChildrenMixin, LookupMixIn, NodeNG):"
OWNERS = [
    "AssignName",
    "Break",
    "Const",
    "Continue",
    "DelName",
    "DictUnpack",
    "Ellipsis",
    "EmptyNode",
    "Global",
    "Import",
    "ImportFrom",
    "Name",
    "Nonlocal",
    "Pass",
]


def _extracted(a: Analysis) -> dict[str, Finding]:
    return {f.symbol: f for f in a.findings if f.kind == "code.extracted"}


def _site(fd: Finding, cls: str) -> dict:
    [site] = [s for s in fd.details["sites"] if s["class"] == cls]
    return site


def _line_of(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


def _astroid_variant(tmp_path: Path, name_line: str, edit=lambda side, text: text) -> Analysis:
    """The real astroid commit replayed in a git repository, with ``class Name`` declared as
    ``name_line`` after it; ``edit(side, text)`` may change a module on both sides alike."""
    before = {p: edit("before", corpus_text(ASTROID, p, "before")) for p in (NODES, MIXINS)}
    after = {p: edit("after", corpus_text(ASTROID, p, "after")) for p in (NODES, MIXINS)}
    assert NAME_AFTER in after[NODES]
    after[NODES] = after[NODES].replace(NAME_AFTER, name_line)
    return analyse_commit(
        tmp_path,
        {"astroid/__init__.py": "", **before},
        after,
        message="Add NoChildrenMixin (#560)",
    )


def test_astroid_no_children_mixin_names_the_mixin_method_and_its_14_owners():
    a = corpus_analysis(ASTROID)
    [fd] = _extracted(a).values()
    assert (fd.symbol, fd.path) == ("NoChildrenMixin.get_children", MIXINS)
    assert fd.details["home_kind"] == "mixin"
    assert fd.details["method"] == "get_children"
    assert fd.details["former_owners"] == OWNERS
    assert fd.details["equality"] == "byte-identical"
    assert fd.details["behavior_change"] is False
    # The MRO of every former owner reaches the mixin before NodeNG.get_children.
    assert all(s["inherits_new_home"] is True for s in fd.details["sites"])
    assert not any(s["shadowed_by"] or s["class_relative"] for s in fd.details["sites"])
    # The owners' changed ``class`` lines (one wrapped over two lines) are explained.
    after = corpus_text(ASTROID, NODES)
    for line in (NAME_AFTER, "class AssignName(mixins.NoChildrenMixin, LookupMixIn,"):
        assert (NODES, "+", _line_of(after, line)) in fd.explains
    before = corpus_text(ASTROID, NODES, "before")
    assert (NODES, "-", _line_of(before, "class Name(LookupMixIn, NodeNG):")) in fd.explains
    assert a.model.summary.verdict == "pure-refactor"
    assert a.model.summary.explained_lines == a.model.summary.changed_lines
    # The owners' file says where its methods went, not "no analyzer finding".
    md = render_markdown(a.model, "en")
    [item] = [ln for ln in md.splitlines() if re.match(rf"\d+\. \*\*\[?`{re.escape(NODES)}`", ln)]
    assert (
        "`AssignName.get_children`, `DelName.get_children`, `Name.get_children` and 11 more" in item
    )
    assert "are replaced by `NoChildrenMixin.get_children` in `astroid/mixins.py`" in item
    # (the key files' one-line role, "14 definitions replaced by a shared one", went with the
    # key files section: the breakdown item above is the file's entry now, issue 32 §5)
    assert "no analyzer finding" not in item


def test_mixin_listed_after_a_base_that_defines_the_method_is_shadowed(tmp_path: Path):
    # NodeNG.get_children iterates _astroid_fields: Name would no longer use the mixin's.
    a = _astroid_variant(tmp_path, "class Name(LookupMixIn, NodeNG, mixins.NoChildrenMixin):")
    fd = _extracted(a)["NoChildrenMixin.get_children"]
    name = _site(fd, "Name")
    assert (name["inherits_new_home"], name["shadowed_by"]) == (False, "NodeNG.get_children")
    assert _site(fd, "Pass")["inherits_new_home"] is True
    assert fd.details["behavior_change"] is True
    assert not fd.explains
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_mixin_listed_after_a_base_without_the_method_is_still_reached(tmp_path: Path):
    # LookupMixIn (a plain object subclass) defines no get_children: the MRO reaches the mixin.
    a = _astroid_variant(tmp_path, "class Name(LookupMixIn, mixins.NoChildrenMixin, NodeNG):")
    fd = _extracted(a)["NoChildrenMixin.get_children"]
    assert (_site(fd, "Name")["inherits_new_home"], _site(fd, "Name")["shadowed_by"]) == (True, "")
    assert a.model.summary.verdict == "pure-refactor"


def test_mixin_after_a_base_that_does_not_resolve_is_not_claimed_either_way(tmp_path: Path):
    # astroid/bases.py is not in this repository: bases.Instance may define get_children.
    a = _astroid_variant(
        tmp_path, "class Name(bases.Instance, mixins.NoChildrenMixin, LookupMixIn, NodeNG):"
    )
    fd = _extracted(a)["NoChildrenMixin.get_children"]
    assert _site(fd, "Name")["inherits_new_home"] is None
    assert fd.details["behavior_change"] is False  # not known to change either
    assert not fd.explains
    assert a.model.summary.verdict != "pure-refactor"


def test_hoisted_body_calling_super_is_not_proven(tmp_path: Path):
    # Equal text, but super() now starts from the mixin's place in the MRO, not the owner's.
    def via_super(side: str, text: str) -> str:
        return text.replace(
            "def get_children(self):\n        yield from ()",
            "def get_children(self):\n        yield from super().get_children()",
        )

    a = _astroid_variant(tmp_path, NAME_AFTER, via_super)
    fd = _extracted(a)["NoChildrenMixin.get_children"]
    assert fd.details["equality"] == "byte-identical"
    assert {tuple(s["class_relative"]) for s in fd.details["sites"]} == {("super",)}
    assert fd.details["behavior_change"] is False
    assert not fd.explains
    assert a.model.summary.verdict != "pure-refactor"


def test_scrapy_copy_edited_on_its_way_into_the_base_is_reported_with_its_residual():
    a = corpus_analysis("scrapy-dcf7235f")
    found = _extracted(a)
    process = found["CommonCommands.process_options"]
    assert process.details["equality"] == "modulo-renames"
    assert process.details["former_owners"] == ["Command"]
    assert {s["path"] for s in process.details["sites"]} == {
        "scrapy/commands/crawl.py",
        "scrapy/commands/runspider.py",
    }
    assert all(s["inherits_new_home"] is True for s in process.details["sites"])
    assert process.explains
    # add_options lost the space before "(use - for stdout)" when its help string was split.
    add = found["CommonCommands.add_options"]
    assert (add.details["equality"], add.details["behavior_change"]) == ("different", True)
    assert not add.explains
    for site in add.details["sites"]:
        assert site["equality"] == "different"
        [old, new] = site["residual"]
        assert (
            old.startswith("-") and "help='dump scraped items into FILE (use - for stdout)'" in old
        )
        assert (
            new.startswith("+")
            and "help='dump scraped items into FILE' + '(use - for stdout)'" in new
        )
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_astroid_base_container_same_helper_spelled_through_its_module():
    a = corpus_analysis("astroid-267ed99d")
    found = _extracted(a)
    assert set(found) == {
        "_BaseContainer.__init__",
        "_BaseContainer.itered",
        "_BaseContainer.bool_value",
    }
    init = found["_BaseContainer.__init__"]
    # objects.FrozenSet said node_classes.const_factory(e): the same function.
    assert _site(init, "FrozenSet")["equality"] == "modulo-renames"
    assert init.details["former_owners"] == ["FrozenSet", "List", "Set", "Tuple"]
    assert all(f.details["behavior_change"] is False for f in found.values())
    # FrozenSet's new bases (and the _astroid_fields it gains) are no part of the extraction.
    objects_after = corpus_text("astroid-267ed99d", "astroid/objects.py")
    frozen = _line_of(objects_after, "class FrozenSet(node_classes._BaseContainer):")
    assert all(("astroid/objects.py", "+", frozen) not in f.explains for f in found.values())
    assert "astroid/objects.py" in a.model.summary.headline["unexplained_files"]
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_scrapy_imports_of_both_commands_follow_the_hoisted_methods_even_rewrapped():
    # crawl.py called feed_process_params_from_cli(...) on one line, common_commands.py wraps
    # the same statement over two: the import moved with the code, it was not dropped and added.
    a = corpus_analysis("scrapy-dcf7235f")
    moved = {(f.symbol, f.details["from_path"]) for f in a.findings if f.kind == "import.moved"}
    # Both commands' imports went to the one import block of the shared base.
    names = ("ScrapyCommand", "arglist_to_dict", "feed_process_params_from_cli")
    files = ("scrapy/commands/crawl.py", "scrapy/commands/runspider.py")
    assert moved == {(n, f) for n in names for f in files}
    assert not [f for f in a.findings if f.kind == "import.removed"]


PTB = "python-telegram-bot-ce852de9"
PTB_BASE = "telegram/telegram_boject_base.py"
STR_METHOD = "    def __str__(self):\n        return self.to_json()\n"
STR_ONLY = 'class Base(object):\n\n    """Base class for most telegram object"""\n\n' + STR_METHOD
GETITEM_ONLY = (
    "class Base(object):\n\n    def __getitem__(self, item):\n        return self.__dict__[item]\n"
)


def _ptb_variant(
    tmp_path: Path, base_before: str | None, base_after: str, edit=lambda text: text
) -> Analysis:
    """The real commit replayed with another ``Base`` module before and after it;
    ``edit(text)`` may change the other modules on both sides alike."""
    files = [f.path for f in corpus_bundle(PTB).files if f.path != PTB_BASE]
    before = {p: edit(corpus_text(PTB, p, "before")) for p in files}
    after = {p: edit(corpus_text(PTB, p, "after")) for p in files}
    return analyse_commit(
        tmp_path,
        {"telegram/__init__.py": "", PTB_BASE: base_before, **before},
        {PTB_BASE: base_after, **after},
        message="base class for telegram class (#40)",
    )


def _audio_class_line() -> tuple[str, str, int]:
    audio = corpus_text(PTB, "telegram/audio.py")
    return ("telegram/audio.py", "+", _line_of(audio, "class Audio(Base):"))


def test_ptb_str_moved_to_a_base_that_brings_more_is_not_pure():
    a = corpus_analysis(PTB)
    fd = _extracted(a)["Base.__str__"]
    assert fd.path == PTB_BASE
    assert len(fd.details["former_owners"]) == 14
    assert len({s["path"] for s in fd.details["sites"]}) == 14
    # ForceReply keeps ``class ForceReply(ReplyMarkup)``: it inherits Base through ReplyMarkup.
    assert _site(fd, "ForceReply")["inherits_new_home"] is True
    assert all(s["inherits_new_home"] is True for s in fd.details["sites"])
    # Each class now also gets Base.__getitem__, de_json and the abstract to_json: its changed
    # ``class`` line is a change of its own, not part of the move.
    assert _audio_class_line() not in fd.explains
    (unexplained,) = [r for r in a.model.risks if r["id"] == "unexplained-change"]
    spots = {(e["path"], e["line"]) for e in unexplained["evidence"]}
    assert (_audio_class_line()[0], _audio_class_line()[2]) in spots
    # and ``import telegram`` fails (tests/test_cycles_partial_package.py): that blocks first
    assert a.model.summary.action["blockers"] == ["import-cycle"]
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_ptb_base_holding_only_the_moved_method_is_pure(tmp_path: Path):
    a = _ptb_variant(tmp_path, None, STR_ONLY)
    fd = _extracted(a)["Base.__str__"]
    # ``class Audio(object)`` -> ``class Audio(Base)``: in Python 3 the same class plus Base.
    assert _audio_class_line() in fd.explains
    assert a.model.summary.verdict == "pure-refactor"


def test_ptb_existing_base_with_another_member_is_not_pure(tmp_path: Path):
    # Base existed with __getitem__: classes that newly subclass it gain obj[key].
    a = _ptb_variant(tmp_path, GETITEM_ONLY, GETITEM_ONLY + "\n" + STR_METHOD)
    fd = _extracted(a)["Base.__str__"]
    assert fd.details["equality"] == "byte-identical"
    assert all(s["inherits_new_home"] is True for s in fd.details["sites"])
    assert _audio_class_line() not in fd.explains
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_ptb_slotted_class_gaining_a_base_without_slots_is_not_pure(tmp_path: Path):
    # Audio declares __slots__: a base without them gives its instances a __dict__ again.
    def slotted(text: str) -> str:
        return text.replace(
            "    def __init__(self,\n                 file_id,\n                 duration,",
            "    __slots__ = ('file_id', 'duration', 'mime_type', 'file_size')\n\n"
            "    def __init__(self,\n                 file_id,\n                 duration,",
        )

    a = _ptb_variant(tmp_path, None, STR_ONLY, slotted)
    fd = _extracted(a)["Base.__str__"]
    assert _site(fd, "Audio")["inherits_new_home"] is True
    assert _audio_class_line() not in fd.explains  # the edit leaves it where it was
    # The other 13 classes have no __slots__: their class lines are explained.
    user = corpus_text(PTB, "telegram/user.py")
    assert ("telegram/user.py", "+", _line_of(user, "class User(Base):")) in fd.explains
    assert a.model.summary.verdict == "refactor-with-behavior-change"


def test_ptb_base_declaring_the_attribute_it_expects_is_still_pure(tmp_path: Path):
    # ``to_json: object`` binds nothing: an annotation of what the host provides.
    declared = STR_ONLY.replace("    def __str__", "    to_json: object\n\n    def __str__")
    a = _ptb_variant(tmp_path, None, declared)
    fd = _extracted(a)["Base.__str__"]
    assert _audio_class_line() in fd.explains
    assert a.model.summary.verdict == "pure-refactor"
    # With a value it is a class attribute every subclass now inherits.
    valued = STR_ONLY.replace("    def __str__", "    to_json = None\n\n    def __str__")
    b = _ptb_variant(tmp_path / "valued", None, valued)
    assert _audio_class_line() not in _extracted(b)["Base.__str__"].explains
    assert b.model.summary.verdict == "refactor-with-behavior-change"


INFER_NAME = "    def _infer_name(self, frame, name):\n        return name\n"


def test_mixin_taking_a_second_method_from_two_of_its_users_explains_only_their_class_lines(
    tmp_path: Path,
):
    # Global and Nonlocal also hand their identical _infer_name to NoChildrenMixin: their class
    # lines are explained by the two moves; Pass, Name and the rest now gain an _infer_name.
    def also_infer_name(side: str, text: str) -> str:
        if side == "before":
            return text
        for owner in ("Global", "Nonlocal"):
            init = f"        super({owner}, self).__init__(lineno, col_offset, parent)\n"
            text = text.replace(init + "\n" + INFER_NAME, init)
        mixin = '"""Mixin for nodes with no children, e.g. Pass."""\n'
        return text.replace(mixin, mixin + INFER_NAME + "\n")

    a = _astroid_variant(tmp_path, NAME_AFTER, also_infer_name)
    found = _extracted(a)
    assert found["NoChildrenMixin._infer_name"].details["former_owners"] == ["Global", "Nonlocal"]
    get_children = found["NoChildrenMixin.get_children"]
    nodes = a.bundle.file(NODES).after
    assert nodes is not None and nodes.count(INFER_NAME) == 1  # TryExcept keeps its own
    for line, explained in (
        ("class Global(mixins.NoChildrenMixin, Statement):", True),
        ("class Nonlocal(mixins.NoChildrenMixin, Statement):", True),
        ("class Pass(mixins.NoChildrenMixin, Statement):", False),
        (NAME_AFTER, False),
    ):
        assert ((NODES, "+", _line_of(nodes, line)) in get_children.explains) is explained, line
    # The new mixin's own lines go with either member; each member's body with its own move.
    mixins = a.bundle.file(MIXINS).after
    assert mixins is not None
    header = _line_of(mixins, "class NoChildrenMixin:")
    infer = header + 2  # after the docstring line (ImportFromMixin has an _infer_name too)
    assert mixins.splitlines()[infer - 1] == "    def _infer_name(self, frame, name):"
    assert (MIXINS, "+", header) in get_children.explains
    assert (MIXINS, "+", infer) not in get_children.explains
    assert (MIXINS, "+", infer) in found["NoChildrenMixin._infer_name"].explains
    assert a.model.summary.verdict == "refactor-with-behavior-change"


SCRAPY = "scrapy-dcf7235f"
SCRAPY_BASE = "scrapy/commands/common_commands.py"


def test_hoisted_body_whose_global_means_another_object_in_the_base_module_is_not_proven(
    tmp_path: Path,
):
    # The shared base defines its own arglist_to_dict instead of importing scrapy.utils.conf's:
    # process_options reads the same, but calls another function now.
    own = 'def arglist_to_dict(arglist):\n    return dict(x.split("=", 1) for x in arglist)\n'
    files = [f.path for f in corpus_bundle(SCRAPY).files]
    before = {p: corpus_text(SCRAPY, p, "before") for p in files if p != SCRAPY_BASE}
    after = {p: corpus_text(SCRAPY, p, "after") for p in files}
    conf = "from scrapy.utils.conf import arglist_to_dict, feed_process_params_from_cli\n"
    assert conf in after[SCRAPY_BASE]
    after[SCRAPY_BASE] = after[SCRAPY_BASE].replace(
        conf, "from scrapy.utils.conf import feed_process_params_from_cli\n\n\n" + own
    )
    a = analyse_commit(
        tmp_path,
        {"scrapy/__init__.py": "", "scrapy/commands/__init__.py": "", **before},
        after,
        message="Code sharing between crawl and runspider command (#4552)",
    )
    fd = _extracted(a)["CommonCommands.process_options"]
    assert fd.details["equality"] == "modulo-renames"
    assert {tuple(s["rebound_globals"]) for s in fd.details["sites"]} == {("arglist_to_dict",)}
    assert fd.details["behavior_change"] is False
    assert not fd.explains
    # Unchanged, the same copies are proven (test above): only the rebinding stops them.
    assert all(
        not s["rebound_globals"]
        for s in _extracted(corpus_analysis(SCRAPY))["CommonCommands.process_options"].details[
            "sites"
        ]
    )


def test_methods_of_local_classes_moved_with_their_renamed_test_class_are_no_mixin_hoist():
    # scrapy df64fe32 renamed TestCaseInsensitiveDictBase to TestCaseInsensitiveDict: the local
    # MyMapping/MyMutableMapping classes of two of its tests moved with it. Their old classes
    # are gone, no class inherits anything new: nothing was extracted.
    a = corpus_analysis("scrapy-df64fe32")
    assert not [d for d in a.diagnostics if "analyzer failed" in d.message]
    assert not [f.symbol for f in _extracted(a).values() if "<locals>" in f.symbol]


def test_two_owners_of_one_name_in_two_files_are_told_apart():
    # scrapy dcf7235f: crawl.py's and runspider.py's classes are both called Command.
    md = render_markdown(corpus_analysis("scrapy-dcf7235f").model, "en")
    assert "from `crawl.Command.process_options` and `runspider.Command.process_options`" in md
    assert "`Command.add_options` and `Command.add_options`" not in md
