"""Idioms: spellings of one computation the language makes equal, put in one form.

Linters' autofixes (ruff's SIM, UP, C4, PIE families; pyupgrade) and hand clean-ups rewrite
code into another spelling of the same thing. ``Idioms`` rewrites both versions of a function
into one form before they are compared; ``applied`` names what it rewrote (``IDIOMS``, each
worded by the templates), and a finding names the idioms that differ between the versions.

Every rewrite here holds for every input, given that the builtins named are the builtins (the
caller's ``builtin`` says a name is not imported, assigned or defined in the file) and that
``__hash__``/``__len__`` only compute values:

- ``not a is b`` / ``a is not b``, ``not a in b`` / ``a not in b``; ``typing.TYPE_CHECKING`` is False;
  a test on a constant has one outcome (``constants``: ``not False``, ``True and x``, ``if False``);
- ``if c: t = x`` / ``else: t = y`` is ``t = x if c else y`` (``conditionals``);
- ``IOError``, ``EnvironmentError``, ``socket.error``, ``select.error``, ``os.error`` are
  ``OSError``; ``io.open`` is ``open``;
- a tuple of types in ``isinstance``/``issubclass``/``except``: nested tuples flattened,
  repeated names dropped, one item unwrapped; ``isinstance(x, A) or isinstance(x, B)`` (``x`` a
  name) is ``isinstance(x, (A, B))``;
- ``bool(e)`` of an expression that is already a ``bool`` is ``e``;
- ``dict()``/``list()``/``tuple()``/``str()`` are ``{}``/``[]``/``()``/``""``, ``dict(k=v)``
  is ``{"k": v}``, ``str("s")`` is ``"s"``, ``dict((k, v) for ...)`` is ``{k: v for ...}``;
- ``sorted(list(x))`` is ``sorted(x)``, ``list(sorted(x))`` is ``sorted(x)``; a list
  comprehension passed to ``list``/``set``/``tuple``/``frozenset``/``sorted`` or a string's
  ``join`` (which consume it whole, in order) is a generator; ``[x for x in y]`` is
  ``list(y)`` (and ``set``);
- ``f(**{"k": v})`` is ``f(k=v)``; ``raise E()`` of an exception class is ``raise E``;
- ``try: ... except E: pass`` is ``with contextlib.suppress(E): ...`` (assuming no exception
  group is raised: ``suppress`` splits one on Python >= 3.12);
- ``if c: return True`` then ``return False`` (or ``else``) is ``return bool(c)`` (``not c``
  inverted); a loop returning ``True`` on the first item that passes a test, then ``False``,
  is ``return any(test for ...)`` (``all`` and ``not any`` likewise);
- a new empty list filled by one loop is its comprehension (``accumulators``).
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Callable

from prreport.equivalence.conditionals import conditional_assignment
from prreport.equivalence.constants import fold_boolop, fold_if, fold_ifexp, fold_not
from prreport.equivalence.returns import BoolReturns

IDIOMS: tuple[str, ...] = (
    "not-is",
    "exception-alias",
    "type-tuple",
    "bool-of-bool",
    "literal-call",
    "consumed-comprehension",
    "dict-kwargs",
    "raise-class",
    "suppress",
    "bool-return",
    "any-all",
    "accumulator",
    "unfailing-import",  # equivalence.guards
    "typing-generic",  # equivalence.typingnames
    "type-checking",
    "constant-test",  # equivalence.constants
    "conditional-assignment",  # equivalence.conditionals
)

_ALIASES = {
    "IOError": "OSError",
    "EnvironmentError": "OSError",
    "@socket.error": "OSError",
    "@select.error": "OSError",
    "@os.error": "OSError",
    "@io.open": "open",
}
_TYPE_CHECKING = ("@typing.TYPE_CHECKING", "@typing_extensions.TYPE_CHECKING")
_EMPTY: dict[str, Callable[[], ast.expr]] = {
    "dict": lambda: ast.Dict(keys=[], values=[]),
    "list": lambda: ast.List(elts=[], ctx=ast.Load()),
    "tuple": lambda: ast.Tuple(elts=[], ctx=ast.Load()),
    "str": lambda: ast.Constant(value=""),
}
_CONSUMERS = ("tuple", "sorted", "frozenset")
_BOOL_CALLS = ("isinstance", "issubclass", "callable", "hasattr", "bool")
_BOOL_OPS = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_EXCEPTIONS = frozenset(
    n
    for n in dir(builtins)
    if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n), BaseException)
)


def exception_classes(tree: ast.Module) -> frozenset[str]:
    """Module-level classes bound once whose bases are builtin exceptions or such classes."""
    bound: dict[str, int] = {}
    for st in tree.body:
        for name in (
            getattr(st, "name", None),
            *(getattr(t, "id", None) for t in getattr(st, "targets", [])),
        ):
            if name:
                bound[name] = bound.get(name, 0) + 1
    classes = {
        st.name: st for st in tree.body if isinstance(st, ast.ClassDef) and bound[st.name] == 1
    }
    found: set[str] = set()
    while True:
        more = {
            name
            for name, st in classes.items()
            if name not in found
            and st.bases
            and all(
                isinstance(b, ast.Name) and (b.id in _EXCEPTIONS or b.id in found) for b in st.bases
            )
        }
        if not more:
            return frozenset(found - _EXCEPTIONS)
        found |= more


def is_name(node: ast.AST, ident: str) -> bool:
    return isinstance(node, ast.Name) and node.id == ident


def _const(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def plain(node: ast.AST) -> bool:
    """A name, a constant or an attribute chain of a name: reading it again gives the same."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name | ast.Constant)


def call_of(node: ast.AST, builtin: Callable[[str], bool], *names: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in names
        and builtin(node.func.id)
    )


class Idioms(BoolReturns, ast.NodeTransformer):
    """Rewrites a (canonical) function into the one form of each idiom; ``applied`` lists the
    idioms it rewrote, in order."""

    def __init__(
        self, builtin: Callable[[str], bool], raised: Callable[[str], bool] | None = None
    ) -> None:
        self.builtin = builtin
        self.raised = raised or (lambda name: False)  # an exception class of the module
        self.applied: list[str] = []

    def _did(self, idiom: str) -> None:
        self.applied.append(idiom)

    # -- expressions ---------------------------------------------------------------------------

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if (folded := fold_not(node)) is not None:
            self._did("constant-test")
            return folded
        test = node.operand
        if isinstance(node.op, ast.Not) and isinstance(test, ast.Compare) and len(test.ops) == 1:
            flip = {ast.Is: ast.IsNot, ast.In: ast.NotIn}.get(type(test.ops[0]))
            if flip is not None:
                self._did("not-is")
                return ast.copy_location(
                    ast.Compare(left=test.left, ops=[flip()], comparators=test.comparators), node
                )
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in _TYPE_CHECKING and isinstance(node.ctx, ast.Load):
            self._did("type-checking")  # False whenever the code runs (only checkers see True)
            return ast.copy_location(ast.Constant(value=False), node)
        target = _ALIASES.get(node.id)
        if (
            target is not None
            and isinstance(node.ctx, ast.Load)
            and (node.id.startswith("@") or self.builtin(node.id))
            and self.builtin(target)
        ):
            self._did("exception-alias")
            return ast.copy_location(ast.Name(id=target, ctx=ast.Load()), node)
        return node

    def _types(self, node: ast.expr) -> ast.expr:
        """A tuple of types flattened, its repeated plain items dropped, one item unwrapped."""
        if not isinstance(node, ast.Tuple):
            return node
        items: list[ast.expr] = []
        seen: set[str] = set()
        for elt in node.elts:
            flat = self._types(elt) if isinstance(elt, ast.Tuple) else elt
            for item in flat.elts if isinstance(flat, ast.Tuple) else [flat]:
                key = ast.dump(item)
                if plain(item) and key in seen:
                    continue
                seen.add(key)
                items.append(item)
        out: ast.expr = items[0] if len(items) == 1 else ast.Tuple(elts=items, ctx=ast.Load())
        if ast.dump(out) != ast.dump(node):
            self._did("type-tuple")
        return out

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        if node.type is not None:
            node.type = self._types(node.type)
        if len(node.body) == 1 and isinstance(node.body[0], ast.Expr):
            if _const(node.body[0].value, Ellipsis):
                node.body = [ast.Pass()]
        return node

    def visit_If(self, node: ast.If) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if (branch := fold_if(node)) is not None:
            self._did("constant-test")
            return branch
        if (one := conditional_assignment(node)) is not None:
            self._did("conditional-assignment")
            return one
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if (value := fold_ifexp(node)) is not None:
            self._did("constant-test")
            return value
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if (folded := fold_boolop(node)) is not None:
            self._did("constant-test")
            if not isinstance(folded, ast.BoolOp):
                return folded
            node = folded
        if not isinstance(node.op, ast.Or):
            return node
        values: list[ast.expr] = []
        for value in node.values:
            last = values[-1] if values else None
            if (
                last is not None
                and self._isinstance_of_name(last)
                and self._isinstance_of_name(value)
                and ast.dump(last.args[0]) == ast.dump(value.args[0])  # type: ignore[attr-defined]
            ):
                both = ast.Tuple(elts=[last.args[1], value.args[1]], ctx=ast.Load())  # type: ignore[attr-defined]
                last.args[1] = self._types(both)  # type: ignore[attr-defined]
                self._did("type-tuple")
                continue
            values.append(value)
        return (
            values[0] if len(values) == 1 else ast.copy_location(ast.BoolOp(ast.Or(), values), node)
        )

    def _isinstance_of_name(self, node: ast.expr) -> bool:
        return (
            call_of(node, self.builtin, "isinstance")
            and len(node.args) == 2  # type: ignore[attr-defined]
            and not node.keywords  # type: ignore[attr-defined]
            and isinstance(node.args[0], ast.Name)  # type: ignore[attr-defined]
        )

    def is_bool(self, node: ast.expr) -> bool:
        """``node`` always evaluates to a ``bool``."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, bool)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, ast.Not)
        if isinstance(node, ast.Compare):
            return all(isinstance(op, _BOOL_OPS) for op in node.ops)
        if isinstance(node, ast.BoolOp):
            return all(self.is_bool(v) for v in node.values)
        return call_of(node, self.builtin, *_BOOL_CALLS)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if any(k.arg is None and self._kwargs_display(k.value) for k in node.keywords):
            node.keywords = [kw for k in node.keywords for kw in self._spread(k)]
            self._did("dict-kwargs")
        func = node.func
        if call_of(node, self.builtin, "isinstance", "issubclass") and len(node.args) == 2:
            node.args[1] = self._types(node.args[1])
        if isinstance(func, ast.Name) and self.builtin(func.id):
            made = self._builtin_call(func.id, node)
            if made is not None:
                return ast.copy_location(made, node)
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "join"
            and isinstance(func.value, ast.Constant)
            and isinstance(func.value.value, str)
        ):
            self._generator_argument(node)
        return node

    def _builtin_call(self, name: str, node: ast.Call) -> ast.expr | None:
        args, kws = node.args, node.keywords
        one = args[0] if len(args) == 1 and not kws else None
        if name == "bool" and one is not None and self.is_bool(one):
            self._did("bool-of-bool")
            return one
        if name in _EMPTY and not args and not kws:
            self._did("literal-call")
            return _EMPTY[name]()
        if name == "dict" and not args and kws and all(k.arg for k in kws):
            self._did("literal-call")
            return ast.Dict(
                keys=[ast.Constant(value=k.arg) for k in kws], values=[k.value for k in kws]
            )
        if name == "str" and isinstance(one, ast.Constant) and isinstance(one.value, str):
            self._did("literal-call")
            return one
        if one is None:
            return None
        if name == "dict" and isinstance(one, ast.GeneratorExp | ast.ListComp):
            pair = one.elt
            if isinstance(pair, ast.Tuple) and len(pair.elts) == 2:
                self._did("literal-call")
                return ast.DictComp(key=pair.elts[0], value=pair.elts[1], generators=one.generators)
        if name in ("sorted", "list") and call_of(one, self.builtin, "list", "sorted", "tuple"):
            inner: ast.Call = one  # type: ignore[assignment]
            inner_name = getattr(inner.func, "id", "")
            if len(inner.args) == 1 and not inner.keywords:
                if name == "sorted" or inner_name == "sorted":
                    self._did("consumed-comprehension")
                    return ast.Call(
                        func=ast.Name(id="sorted", ctx=ast.Load()), args=inner.args, keywords=[]
                    )
        if name in ("list", "set") and isinstance(one, ast.ListComp):
            self._did("consumed-comprehension")
            comp = ast.ListComp if name == "list" else ast.SetComp
            return comp(elt=one.elt, generators=one.generators)
        if name in _CONSUMERS:
            self._generator_argument(node)
        return None

    def _generator_argument(self, node: ast.Call) -> None:
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.ListComp):
            comp = node.args[0]
            node.args = [ast.GeneratorExp(elt=comp.elt, generators=comp.generators)]
            self._did("consumed-comprehension")

    def _identity(self, node: ast.ListComp | ast.SetComp, name: str) -> ast.AST:
        self.generic_visit(node)
        gens = node.generators
        if (
            len(gens) == 1
            and not gens[0].ifs
            and not gens[0].is_async
            and isinstance(gens[0].target, ast.Name)
            and is_name(node.elt, gens[0].target.id)
            and self.builtin(name)
        ):
            self._did("consumed-comprehension")
            call = ast.Call(
                func=ast.Name(id=name, ctx=ast.Load()), args=[gens[0].iter], keywords=[]
            )
            return ast.copy_location(call, node)
        return node

    def visit_ListComp(self, node: ast.ListComp) -> ast.AST:
        return self._identity(node, "list")

    def visit_SetComp(self, node: ast.SetComp) -> ast.AST:
        return self._identity(node, "set")

    @staticmethod
    def _kwargs_display(value: ast.expr) -> bool:
        if not isinstance(value, ast.Dict) or not value.keys:
            return False
        keys = [k.value if isinstance(k, ast.Constant) else None for k in value.keys]
        return all(
            isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k) for k in keys
        ) and len(set(keys)) == len(keys)

    def _spread(self, kw: ast.keyword) -> list[ast.keyword]:
        if kw.arg is None and self._kwargs_display(kw.value):
            d: ast.Dict = kw.value  # type: ignore[assignment]
            keys = [getattr(k, "value", "") for k in d.keys]
            return [ast.keyword(arg=k, value=v) for k, v in zip(keys, d.values, strict=True)]
        return [kw]

    # -- statements ----------------------------------------------------------------------------

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self.generic_visit(node)
        exc = node.exc
        if (
            isinstance(exc, ast.Call)
            and isinstance(exc.func, ast.Name)
            and (
                (exc.func.id in _EXCEPTIONS and self.builtin(exc.func.id))
                or self.raised(exc.func.id)
            )
            and not exc.args
            and not exc.keywords
        ):
            node.exc = exc.func
            self._did("raise-class")
        return node

    def visit_With(self, node: ast.With) -> ast.AST:
        self.generic_visit(node)
        if len(node.items) != 1 or node.items[0].optional_vars is not None:
            return node
        manager = node.items[0].context_expr
        if not (
            isinstance(manager, ast.Call)
            and is_name(manager.func, "@contextlib.suppress")
            and manager.args
            and not manager.keywords
            and not any(isinstance(a, ast.Starred) for a in manager.args)
        ):
            return node
        types = (
            manager.args[0]
            if len(manager.args) == 1
            else ast.Tuple(elts=manager.args, ctx=ast.Load())
        )
        handler = ast.ExceptHandler(type=self._types(types), name=None, body=[ast.Pass()])
        self._did("suppress")
        return ast.copy_location(
            ast.Try(body=node.body, handlers=[handler], orelse=[], finalbody=[]), node
        )

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(body, list) and not body and not isinstance(node, ast.Module):
            node.body = [ast.Pass()]  # type: ignore[attr-defined]  # its only ``if False:`` folded
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, self._returns(block))
        return node
