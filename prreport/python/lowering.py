"""Newer Python syntax lowered to what the running interpreter's ``ast`` reads, with what was lowered kept.

The stdlib ``ast`` reads only its own interpreter's grammar: on Python 3.11 a file using PEP 810
``lazy import`` (3.15), PEP 695 type parameters and ``type`` statements (3.12), PEP 758
``except A, B:`` (3.14) or PEP 701 f-strings (3.12) does not parse. libcst's own parser reads
all of them on any Python. This module is the libcst side of the one parse door
(``prreport.python.parse``): the file is parsed with libcst, each newer construct is rewritten
into the nearest older spelling **on the same lines** (so every line number an analyzer reports
is the file's own), and the result is parsed with ``ast``. What the older spelling loses is put
back on the ``ast`` nodes as attributes, so analyzers read one tree whatever the Python:

- ``Import.is_lazy`` / ``ImportFrom.is_lazy`` (1 for ``lazy import``, as Python 3.15's own ``ast``
  spells it);
- ``Assign.type_alias`` (True: it was ``type X = ...``, whose value is evaluated lazily);
- ``FunctionDef/AsyncFunctionDef/ClassDef.type_params_lowered`` and, for a ``type`` statement,
  ``Assign.type_params_lowered`` (the names of the PEP 695 parameters removed from its header;
  they are bound in its own scope).

A PEP 701 f-string whose expressions reuse its quote (``f"{d["a"]}"``) is spelled with the
inner strings in the other quote, which gives the same ``ast``: nothing to put back. One that
needs more (a backslash or a comment in an expression, quotes of both kinds, a triple-quoted
one) is spelled as a call ``__prreport_fstring__(text, __prreport_fvalue__(expr, conversion,
spec), ...)`` on the same lines, and ``mark`` turns each such call back into the
``JoinedStr``/``FormattedValue`` nodes Python 3.12 makes (a ``{x=}`` one stays "does not
parse").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider


@dataclass
class Lowered:
    """What the rewrite removed, by the line it starts on."""

    lazy_lines: set[int] = field(default_factory=set)
    alias_lines: set[int] = field(default_factory=set)
    type_params: dict[int, tuple[str, ...]] = field(default_factory=dict)

    fstrings: bool = False  # f-strings spelled as calls (see the module docstring)

    def __bool__(self) -> bool:
        return bool(self.lazy_lines or self.alias_lines or self.type_params or self.fstrings)


class _Lower(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.lowered = Lowered()

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def leave_LazyImport(self, original: cst.LazyImport, updated: cst.LazyImport) -> cst.Import:
        self.lowered.lazy_lines.add(self._line(original))
        return cst.Import(
            names=updated.names,
            semicolon=updated.semicolon,
            whitespace_after_import=updated.whitespace_after_import,
        )

    def leave_LazyImportFrom(
        self, original: cst.LazyImportFrom, updated: cst.LazyImportFrom
    ) -> cst.ImportFrom:
        self.lowered.lazy_lines.add(self._line(original))
        return cst.ImportFrom(
            module=updated.module,
            names=updated.names,
            relative=updated.relative,
            lpar=updated.lpar,
            rpar=updated.rpar,
            semicolon=updated.semicolon,
            whitespace_after_from=updated.whitespace_after_from,
            whitespace_before_import=updated.whitespace_before_import,
            whitespace_after_import=updated.whitespace_after_import,
        )

    def leave_TypeAlias(self, original: cst.TypeAlias, updated: cst.TypeAlias) -> cst.Assign:
        self.lowered.alias_lines.add(self._line(original))
        if original.type_parameters is not None:
            self.lowered.type_params[self._line(original)] = _names(original.type_parameters)
        return cst.Assign(
            targets=[cst.AssignTarget(target=updated.name)],
            value=updated.value,
            semicolon=updated.semicolon,
        )

    def _params(self, original: cst.FunctionDef | cst.ClassDef) -> None:
        if original.type_parameters is not None:
            self.lowered.type_params[self._line(original.name)] = _names(original.type_parameters)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        if original.type_parameters is None:
            return updated
        self._params(original)
        return updated.with_changes(type_parameters=None)

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        if original.type_parameters is None:
            return updated
        self._params(original)
        return updated.with_changes(type_parameters=None)

    def leave_ExceptHandler(
        self, original: cst.ExceptHandler, updated: cst.ExceptHandler
    ) -> cst.ExceptHandler:
        # PEP 758: ``except A, B:`` is ``except (A, B):``; only the parentheses differ.
        kind = updated.type
        if isinstance(kind, cst.Tuple) and not kind.lpar:
            return updated.with_changes(
                type=kind.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            )
        return updated

    def leave_ExceptStarHandler(
        self, original: cst.ExceptStarHandler, updated: cst.ExceptStarHandler
    ) -> cst.ExceptStarHandler:
        kind = updated.type
        if isinstance(kind, cst.Tuple) and not kind.lpar:
            return updated.with_changes(
                type=kind.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            )
        return updated

    def leave_FormattedString(
        self, original: cst.FormattedString, updated: cst.FormattedString
    ) -> cst.BaseExpression:
        # PEP 701: an expression may reuse the f-string's quote (``f"{d["a"]}"``); older
        # Pythons read it with the inner strings in the other quote: the same ``ast``.
        if _reads_here(updated):
            return updated
        quote = updated.end
        if len(quote) != 1:
            return self._as_call(updated)  # a triple-quoted one: no other quote to use
        requote = _Requote(quote, "'" if quote == '"' else '"')
        parts = [
            p.visit(requote) if isinstance(p, cst.FormattedStringExpression) else p
            for p in updated.parts
        ]
        lowered = updated.with_changes(parts=parts)
        if not requote.failed and _reads_here(lowered):
            return lowered
        return self._as_call(updated)

    def _as_call(self, node: cst.FormattedString) -> cst.BaseExpression:
        """The f-string as ``__prreport_fstring__(...)`` (see the module docstring), or as it is."""
        call = _fstring_call(node)
        if call is None or not _reads_here(call):
            return node
        self.lowered.fstrings = True
        return call

    def leave_ConcatenatedString(
        self, original: cst.ConcatenatedString, updated: cst.ConcatenatedString
    ) -> cst.BaseExpression:
        # ``"a" f"{x}"`` with the f-string made a call: one call joining both (``_join``).
        sides = (updated.left, updated.right)
        if not any(isinstance(x, cst.Call) for x in sides):
            return updated
        return cst.Call(func=cst.Name(_CONCAT), args=[cst.Arg(value=x) for x in sides])


_EMPTY = cst.Module(body=[])


def _reads_here(node: cst.CSTNode) -> bool:
    """Whether the running Python's ``ast`` reads the expression ``node``."""
    try:
        ast.parse(_EMPTY.code_for_node(node), mode="eval")
    except SyntaxError:
        return False
    return True


class _Requote(cst.CSTTransformer):
    """String literals quoted with ``quote`` requoted with ``other`` (none may hold ``other``)."""

    def __init__(self, quote: str, other: str) -> None:
        super().__init__()
        self.quote, self.other, self.failed = quote, other, False

    def leave_SimpleString(
        self, original: cst.SimpleString, updated: cst.SimpleString
    ) -> cst.SimpleString:
        value = updated.value
        body = value.lstrip("rbuRBU")
        prefix = value[: len(value) - len(body)]
        if body.startswith(self.quote * 3) or not body.startswith(self.quote):
            return updated
        if self.other in body[1:-1]:
            self.failed = True
            return updated
        return updated.with_changes(value=f"{prefix}{self.other}{body[1:-1]}{self.other}")

    def leave_FormattedString(
        self, original: cst.FormattedString, updated: cst.FormattedString
    ) -> cst.FormattedString:
        if updated.end != self.quote:
            return updated
        texts = [p.value for p in updated.parts if isinstance(p, cst.FormattedStringText)]
        if any(self.other in t for t in texts):
            self.failed = True
            return updated
        return updated.with_changes(start=updated.start[:-1] + self.other, end=self.other)


_FSTRING, _FVALUE, _CONCAT = "__prreport_fstring__", "__prreport_fvalue__", "__prreport_concat__"


def _fstring_call(node: cst.FormattedString) -> cst.Call | None:
    """``f"a{x!r:>{w}}"`` as ``__prreport_fstring__("a", __prreport_fvalue__(x, "r", ...))``."""
    start = node.start
    quote = start.lstrip("rRbBfFuU")
    prefix = "".join(c for c in start[: len(start) - len(quote)] if c not in "fF")
    args = _parts(node.parts, prefix, quote)
    return None if args is None else cst.Call(func=cst.Name(_FSTRING), args=args)


def _parts(parts: object, prefix: str, quote: str) -> list[cst.Arg] | None:
    out: list[cst.Arg] = []
    for part in parts:  # type: ignore[attr-defined]
        if isinstance(part, cst.FormattedStringText):
            text = part.value.replace("{{", "{").replace("}}", "}")
            out.append(cst.Arg(value=cst.SimpleString(f"{prefix}{quote}{text}{quote}")))
            continue
        if not isinstance(part, cst.FormattedStringExpression) or part.equal is not None:
            return None
        conv = cst.SimpleString(repr(part.conversion)) if part.conversion else cst.Name("None")
        spec: cst.BaseExpression = cst.Name("None")
        if part.format_spec:
            inner = _parts(part.format_spec, prefix, quote)
            if inner is None:
                return None
            spec = cst.Call(func=cst.Name(_FSTRING), args=inner)
        value = cst.Call(
            func=cst.Name(_FVALUE),
            args=[cst.Arg(value=part.expression), cst.Arg(value=conv), cst.Arg(value=spec)],
        )
        out.append(cst.Arg(value=value))
    return out


class _Restore(ast.NodeTransformer):
    """The calls ``_fstring_call`` made, back as ``JoinedStr`` nodes."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = getattr(node.func, "id", "")
        if name not in (_FSTRING, _CONCAT):
            return node
        values: list[ast.expr] = []
        for arg in node.args:
            parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
            for part in parts:
                if isinstance(part, ast.Call) and getattr(part.func, "id", "") == _FVALUE:
                    value, conv, spec = part.args
                    part = ast.copy_location(
                        ast.FormattedValue(
                            value=value,
                            conversion=ord(str(conv.value))
                            if isinstance(conv, ast.Constant) and conv.value
                            else -1,
                            format_spec=spec if isinstance(spec, ast.JoinedStr) else None,
                        ),
                        part,
                    )
                if (
                    isinstance(part, ast.Constant)
                    and values
                    and isinstance(values[-1], ast.Constant)
                ):
                    joined = str(values[-1].value) + str(part.value)
                    values[-1] = ast.copy_location(ast.Constant(value=joined), values[-1])
                elif not (isinstance(part, ast.Constant) and part.value == ""):
                    values.append(part)
        return ast.copy_location(ast.JoinedStr(values=values), node)


def _names(params: cst.TypeParameters) -> tuple[str, ...]:
    return tuple(p.param.name.value for p in params.params)


def lower(text: str) -> tuple[str, Lowered] | None:
    """``text`` rewritten into older syntax on the same lines, and what was removed; None when
    libcst does not read it either (or nothing newer was found to lower)."""
    try:
        module = cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    transformer = _Lower()
    code = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer).code
    if code == text:
        return None
    return code, transformer.lowered


def mark(tree: ast.Module, lowered: Lowered) -> None:
    """Put what the rewrite removed back on the nodes of ``tree`` (see the module docstring)."""
    if lowered.fstrings:
        _Restore().visit(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", None)
        if line is None:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)) and line in lowered.lazy_lines:
            setattr(node, "is_lazy", 1)  # noqa: B010 (Python 3.15's own field)
        elif isinstance(node, ast.Assign) and line in lowered.alias_lines:
            setattr(node, "type_alias", True)  # noqa: B010
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign)):
            names = lowered.type_params.get(line)
            if names:
                setattr(node, "type_params_lowered", names)  # noqa: B010
