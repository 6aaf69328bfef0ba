"""``typing`` spelled as the builtins and ``collections.abc`` it aliases (PEP 585).

On Python >= 3.9 ``typing.Dict[str, int]`` and ``dict[str, int]`` are generic aliases of the
same origin: subscripted, they mean the same (both instantiate ``dict``, both refuse
``isinstance``); ``typing.Optional[X]`` is ``typing.Union[X, None]``. Only subscripted uses are
rewritten (``typing.Dict()`` raises where ``dict()`` does not), and only when the project
declares Python >= 3.9 (before it, ``dict[str, int]`` raises ``TypeError``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

_BUILTIN = {
    "Dict": "dict",
    "List": "list",
    "Tuple": "tuple",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Type": "type",
}
_COLLECTIONS = {
    "Deque": "deque", "DefaultDict": "defaultdict", "OrderedDict": "OrderedDict",
    "Counter": "Counter", "ChainMap": "ChainMap",
}  # fmt: skip
_ABC = {
    "AbstractSet": "Set", "Awaitable": "Awaitable", "Coroutine": "Coroutine",
    "AsyncIterable": "AsyncIterable", "AsyncIterator": "AsyncIterator", "Iterable": "Iterable",
    "Iterator": "Iterator", "Generator": "Generator", "AsyncGenerator": "AsyncGenerator",
    "Collection": "Collection", "Container": "Container", "Reversible": "Reversible",
    "Mapping": "Mapping", "MutableMapping": "MutableMapping", "Sequence": "Sequence",
    "MutableSequence": "MutableSequence", "MutableSet": "MutableSet", "KeysView": "KeysView",
    "ItemsView": "ItemsView", "ValuesView": "ValuesView", "MappingView": "MappingView",
    "Callable": "Callable",
}  # fmt: skip
_TYPING = ("@typing.", "@typing_extensions.")


def _target(name: str, builtin: Callable[[str], bool]) -> str | None:
    for prefix in _TYPING:
        if not name.startswith(prefix):
            continue
        short = name[len(prefix) :]
        if short in _BUILTIN and builtin(_BUILTIN[short]):
            return _BUILTIN[short]
        if short in _COLLECTIONS:
            return "@collections." + _COLLECTIONS[short]
        if short in _ABC:
            return "@collections.abc." + _ABC[short]
    return None


class TypingNames(ast.NodeTransformer):
    """Subscripted ``typing`` generics in their builtin spelling; ``applied`` counts rewrites."""

    def __init__(self, builtin: Callable[[str], bool]) -> None:
        self.builtin = builtin
        self.applied = 0

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        value = node.value
        if not isinstance(value, ast.Name):
            return node
        if value.id in ("@typing.Optional", "@typing_extensions.Optional"):
            self.applied += 1
            union = ast.Name(id="@typing.Union", ctx=ast.Load())
            pair = ast.Tuple(elts=[node.slice, ast.Constant(value=None)], ctx=ast.Load())
            return ast.copy_location(ast.Subscript(value=union, slice=pair, ctx=node.ctx), node)
        target = _target(value.id, self.builtin)
        if target is not None:
            self.applied += 1
            node.value = ast.copy_location(ast.Name(id=target, ctx=ast.Load()), value)
        return node
