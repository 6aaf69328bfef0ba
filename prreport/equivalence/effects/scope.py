"""How a name reads in the function summarised, and the repository helpers a call is replaced by.

A local reads from the path (one that may be unbound there gives no answer); an imported
object (spelled ``@module.name`` by ``canonical``) is the same at every state; a module-level
name is read at the current state (a call may rebind it); a builtin the module does not bind
is itself. A call of a plain helper of the same module (a module-level ``def`` the module
binds once, undecorated, whose body is straight-line code ending in ``return``, with only
literal defaults) is replaced by what its body does with the arguments bound — so code
extracted into a helper with parameters, or a helper inlined, compares equal.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

from prreport.equivalence.canonical import locally_bound
from prreport.equivalence.effects.blocks import Blocks, assigned_names
from prreport.equivalence.effects.expressions import effect_free
from prreport.equivalence.effects.terms import NONE, Interner, Path, Term, Unsupported, const, ite
from prreport.equivalence.effects.tree import Conts, leaf

_BUILTINS = frozenset(dir(builtins))
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec", "globals", "dir"})
_MAX_DEPTH = 3


@dataclass
class ModuleFacts:
    """What a summary needs of the module around the function: the names bound at module
    level, and the plain helpers (canonical forms) a call may be replaced by."""

    names: frozenset[str] | None  # None: unknown, every free name is read as a module name
    helpers: dict[str, ast.FunctionDef] = field(default_factory=dict)
    # Methods a call on the first parameter (``self.name(...)``) reaches for certain.
    methods: dict[str, ast.FunctionDef] = field(default_factory=dict)


class Machine(Blocks):
    """The symbolic machine for one function of one version."""

    def __init__(
        self, interner: Interner, module: ModuleFacts, fn: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> None:
        super().__init__(interner)
        self.module = module
        self.fn = fn
        self.locals = _local_names(fn)
        self.writes = _write_counts(fn)
        self.inlining: list[str] = []
        params = [a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)]
        order = dict.fromkeys([*params, *assigned_names(fn.body)])
        self.slots = {n: i for i, n in enumerate(order)}
        self.inlined: set[str] = set()

    def summary(self) -> Term:
        """The function's summary tree."""
        args = self.fn.args
        params = [
            *args.posonlyargs,
            *args.args,
            *([args.vararg] if args.vararg else []),
            *args.kwonlyargs,
            *([args.kwarg] if args.kwarg else []),
        ]
        env: dict[str, Term] = {p.arg: ("param", i) for i, p in enumerate(params)}
        path = Path(env, self.interner.intern(("entry",)))
        return self.block(self.fn.body, path, Conts(lambda p: leaf(p, ("ret", NONE))))

    # -- names ---------------------------------------------------------------------------
    def global_read(self, name: str, path: Path) -> Term | None:
        """``globals()[name]``: the module binding, when ``globals`` is the builtin and the module
        binds ``name`` (else the lookup may fail where the name would find a builtin)."""
        known = self.module.names
        if known is None or "globals" in path.env or "globals" in self.locals:
            return None
        if "globals" in known or name not in known:
            return None
        return ("g", name, path.state)

    def read(self, name: str, path: Path, looks_at_locals: bool = True) -> Term:
        """The term of ``name``; ``looks_at_locals``: a call of it may read the frame's locals
        (``locals()``, ``dir()``, ``vars()``, ``eval``: not modelled; ``dir(x)`` reads ``x``)."""
        if name in path.env:
            return path.env[name]
        if name.startswith("@"):
            return ("imp", name)
        if name in self.locals:
            raise Unsupported(f"{name} may be unbound here")
        if name in _INTROSPECTION and looks_at_locals:
            raise Unsupported("introspection of locals")
        if self.module.names is None or name in self.module.names or name not in _BUILTINS:
            return ("g", name, path.state)
        return ("b", name)

    def code(self, node: ast.AST, path: Path, closure: bool) -> Term:
        """``node`` as a term, the function's locals it reads replaced by their values (a
        closure may only read locals bound once: it sees later rebindings)."""
        own = {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        own |= {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
        own |= {
            n.name
            for n in ast.walk(node)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }

        def term(n: object) -> object:
            if (
                isinstance(n, ast.Name)
                and n.id not in own
                and (n.id in self.locals or n.id in path.env)
            ):
                if closure and self.writes.get(n.id, 0) > 1:
                    raise Unsupported("closure over a rebound local")
                return self.read(n.id, path)
            if isinstance(n, ast.AST):
                return (type(n).__name__, *(term(getattr(n, f, None)) for f in n._fields))
            if isinstance(n, list):
                return tuple(term(x) for x in n)
            return n

        made = ("code", term(node), path.state)
        path.escape(made)  # code run later may change what it reads
        return made

    # -- helpers -------------------------------------------------------------------------
    def inline(self, fn: Term, args: tuple, kws: tuple, path: Path) -> Term | None:
        """What calling a plain helper does, spliced into ``path``; None when ``fn`` is not one
        (the call is then an effect)."""
        if fn[0] == "g" and fn[1] in self.module.helpers:
            name, helper = fn[1], self.module.helpers[fn[1]]
        elif fn[0] == "attr" and fn[1] == ("param", 0) and fn[2] in self.module.methods:
            name, helper = fn[2], self.module.methods[fn[2]]
            args = (fn[1], *args)
        else:
            return None
        if name in self.inlining or len(self.inlining) >= _MAX_DEPTH:
            return None
        env = _bind(helper, args, kws)
        if env is None:
            return None
        trial = Path(env, path.state, [], {}, path.made)
        self.inlining.append(name)
        frame = self.locals, self.writes, self.watching
        self.locals, self.writes = _local_names(helper), _write_counts(helper)
        self.watching = 0  # the helper's locals are gone once it raises
        try:
            value = self._straight(helper.body, trial)
        except Unsupported:
            return None
        finally:
            self.inlining.pop()
            self.locals, self.writes, self.watching = frame
        self.inlined.add(name)
        for effect in trial.effects:
            path.escape(effect)  # the helper changed them as other code would
        path.effects.extend(trial.effects)
        path.state, path.made = trial.state, trial.made
        return value

    def _straight(self, stmts: list[ast.stmt], path: Path) -> Term:
        """The value a straight-line body returns (``if c: return a`` before the rest is
        ``a if c else <rest>`` when neither makes an effect)."""
        for i, st in enumerate(stmts):
            if isinstance(st, ast.Return):
                return self.eval(st.value, path) if st.value is not None else NONE
            if (
                isinstance(st, ast.If)
                and not st.orelse
                and len(st.body) == 1
                and isinstance(st.body[0], ast.Return)
            ):
                early = st.body[0].value
                if not effect_free(st.test) or (early is not None and not effect_free(early)):
                    raise Unsupported("early return with effects")
                cond = self.truthy(self.eval(st.test, path), path)
                yes = self.eval(early, path) if early is not None else NONE
                before = len(path.effects)
                no = self._straight(stmts[i + 1 :], path)
                if len(path.effects) != before:
                    raise Unsupported("effects after an early return")
                return ite(cond, yes, no)
            if isinstance(st, ast.If):
                joined = self._join(st, path)
                if joined is None:
                    raise Unsupported("branching helper")
                path.env = joined.env
                continue
            if not isinstance(st, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass)):
                raise Unsupported("helper statement " + type(st).__name__)
            self.simple(st, path)
        return NONE


def _bind(helper: ast.FunctionDef, args: tuple, kws: tuple) -> dict[str, Term] | None:
    """The helper's parameters bound to a call's arguments, or None (stars in the call, a
    missing or unknown argument, a default that is not a literal)."""
    a = helper.args
    if any(x[0] == "star" for x in args) or any(k[0] == "**" for k in kws):
        return None
    positional = [*a.posonlyargs, *a.args]
    if len(args) > len(positional) and not a.vararg:
        return None
    env: dict[str, Term] = {p.arg: v for p, v in zip(positional, args, strict=False)}
    if a.vararg:
        # ``*args``: the tuple of the positional arguments left over (a forwarder's
        # ``f(*args)`` spreads them again: ``Machine._elements``)
        env[a.vararg.arg] = ("tuple", tuple(args[len(positional) :]))
    names = {p.arg for p in [*a.args, *a.kwonlyargs]}
    extra: list[tuple[str, Term]] = []
    for name, value in kws:
        if name in env or name in {p.arg for p in a.posonlyargs} and not a.kwarg:
            return None
        if name not in names:
            if not a.kwarg:
                return None
            extra.append((name, value))
            continue
        env[name] = value
    if a.kwarg:
        # ``**kwargs``: the keywords no parameter names, in call order (``f(**kwargs)`` passes
        # them on as they came)
        env[a.kwarg.arg] = ("kwargs", tuple(extra))
    defaults = dict(
        zip(
            [p.arg for p in positional][len(positional) - len(a.defaults) :],
            a.defaults,
            strict=False,
        )
    )
    defaults.update(
        {p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=False) if d is not None}
    )
    for p in [*positional, *a.kwonlyargs]:
        if p.arg in env:
            continue
        default = defaults.get(p.arg)
        if not isinstance(default, ast.Constant):
            return None
        env[p.arg] = const(default.value)
    return env


def _local_names(fn: ast.AST) -> frozenset[str]:
    return frozenset(locally_bound(fn))


def _write_counts(fn: ast.AST) -> dict[str, int]:
    out: dict[str, int] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out[n.id] = out.get(n.id, 0) + 1
        elif isinstance(n, ast.arg):
            out[n.arg] = out.get(n.arg, 0) + 1
    return out
