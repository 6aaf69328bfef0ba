"""Everyday rewrites: which spellings of the same code (linters' autofixes — ruff's SIM, UP, C4,
RET, PIE families, pyupgrade — and common hand clean-ups) prreport proves a pure refactor.

    python benchmarks/everyday_rewrites.py [NAME ...]

Each case is one function before and after, committed to a scratch git repository and analysed by
the whole pipeline; a line per case (``OK`` when proven ``pure-refactor``) and the count. Some
cases are meant to stay unproven: they change behaviour for some input (``'x %s' % (a,)`` and
``'x %s' % a`` differ for a tuple ``a``) or need a type fact the code does not give.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.gitrepo import analyse_commit  # noqa: E402

HDR = "import contextlib\nimport os\nimport sys\nimport socket\nimport re\n\n\n"
CASES = {
    "SIM105 suppress": (
        "def f(p):\n    try:\n        os.remove(p)\n    except OSError:\n        pass\n    return 1\n",
        "def f(p):\n    with contextlib.suppress(OSError):\n        os.remove(p)\n    return 1\n",
    ),
    "SIM102 nested if": (
        "def f(a, b):\n    if a:\n        if b:\n            g()\n",
        "def f(a, b):\n    if a and b:\n        g()\n",
    ),
    "SIM108 ternary": (
        "def f(a):\n    if a:\n        x = 1\n    else:\n        x = 2\n    return x\n",
        "def f(a):\n    x = 1 if a else 2\n    return x\n",
    ),
    "SIM103 return bool": (
        "def f(a):\n    if a > 1:\n        return True\n    else:\n        return False\n",
        "def f(a):\n    return a > 1\n",
    ),
    "SIM103b bool()": (
        "def f(a):\n    if a:\n        return True\n    return False\n",
        "def f(a):\n    return bool(a)\n",
    ),
    "SIM110 any": (
        "def f(xs):\n    for x in xs:\n        if x.ok():\n            return True\n    return False\n",
        "def f(xs):\n    return any(x.ok() for x in xs)\n",
    ),
    "SIM111 all": (
        "def f(xs):\n    for x in xs:\n        if not x.ok():\n            return False\n    return True\n",
        "def f(xs):\n    return all(x.ok() for x in xs)\n",
    ),
    "SIM114 or branches": (
        "def f(a, b):\n    if a:\n        g()\n    elif b:\n        g()\n",
        "def f(a, b):\n    if a or b:\n        g()\n",
    ),
    "SIM117 with": (
        "def f(p, q):\n    with open(p) as a:\n        with open(q) as b:\n            g(a, b)\n",
        "def f(p, q):\n    with open(p) as a, open(q) as b:\n        g(a, b)\n",
    ),
    "UP008 super": (
        "class A(B):\n    def m(self, x):\n        return super(A, self).m(x)\n",
        "class A(B):\n    def m(self, x):\n        return super().m(x)\n",
    ),
    "UP032 fstring": (
        "def f(a, b):\n    return '{} and {}'.format(a, b)\n",
        "def f(a, b):\n    return f'{a} and {b}'\n",
    ),
    "UP032b fstring spec": (
        "def f(a):\n    return 'v={0:.2f}'.format(a)\n",
        "def f(a):\n    return f'v={a:.2f}'\n",
    ),
    "UP030 positional": (
        "def f(a, b):\n    return '{0}-{1}'.format(a, b)\n",
        "def f(a, b):\n    return '{}-{}'.format(a, b)\n",
    ),
    "UP024 IOError": (
        "def f(p):\n    try:\n        return g(p)\n    except IOError:\n        return None\n",
        "def f(p):\n    try:\n        return g(p)\n    except OSError:\n        return None\n",
    ),
    "UP024b socket.error": (
        "def f(p):\n    try:\n        return g(p)\n    except (socket.error, EnvironmentError):\n        return None\n",
        "def f(p):\n    try:\n        return g(p)\n    except OSError:\n        return None\n",
    ),
    "UP004 object": (
        "class A(object):\n    def m(self):\n        return 1\n",
        "class A:\n    def m(self):\n        return 1\n",
    ),
    "UP039 parens": ("class A():\n    x = 1\n", "class A:\n    x = 1\n"),
    "UP015 open r": (
        "def f(p):\n    with open(p, 'r') as fh:\n        return fh.read()\n",
        "def f(p):\n    with open(p) as fh:\n        return fh.read()\n",
    ),
    "UP012 encode": (
        "def f(s):\n    return s.encode('utf-8')\n",
        "def f(s):\n    return s.encode()\n",
    ),
    "UP018 str lit": ("def f():\n    return str('x')\n", "def f():\n    return 'x'\n"),
    "UP025 u prefix": ("def f():\n    return u'x'\n", "def f():\n    return 'x'\n"),
    "UP020 io.open": (
        "import io\n\ndef f(p):\n    return io.open(p)\n",
        "import io\n\ndef f(p):\n    return open(p)\n",
    ),
    "UP036 version": (
        "def f():\n    if sys.version_info >= (3, 0):\n        return 1\n    return 2\n",
        "def f():\n    return 1\n",
    ),
    "C400 list gen": (
        "def f(ys):\n    return list(y + 1 for y in ys)\n",
        "def f(ys):\n    return [y + 1 for y in ys]\n",
    ),
    "C401 set gen": (
        "def f(ys):\n    return set(y + 1 for y in ys)\n",
        "def f(ys):\n    return {y + 1 for y in ys}\n",
    ),
    "C402 dict gen": (
        "def f(ys):\n    return dict((k, v) for k, v in ys)\n",
        "def f(ys):\n    return {k: v for k, v in ys}\n",
    ),
    "C408 dict()": (
        "def f():\n    a = dict()\n    b = list()\n    c = dict(x=1)\n    return a, b, c\n",
        "def f():\n    a = {}\n    b = []\n    c = {'x': 1}\n    return a, b, c\n",
    ),
    "C416 list(y)": (
        "def f(ys):\n    return [y for y in ys]\n",
        "def f(ys):\n    return list(ys)\n",
    ),
    "C414 sorted(list)": (
        "def f(ys):\n    return sorted(list(ys))\n",
        "def f(ys):\n    return sorted(ys)\n",
    ),
    "RET504": ("def f(a):\n    x = g(a)\n    return x\n", "def f(a):\n    return g(a)\n"),
    "RET505 else": (
        "def f(a):\n    if a:\n        return 1\n    else:\n        return 2\n",
        "def f(a):\n    if a:\n        return 1\n    return 2\n",
    ),
    "RET501 None": ("def f(a):\n    g(a)\n    return None\n", "def f(a):\n    g(a)\n    return\n"),
    "PIE790 pass": (
        "class E(Exception):\n    '''doc'''\n    pass\n",
        "class E(Exception):\n    '''doc'''\n",
    ),
    "PIE804 kwargs": (
        "def f(a):\n    return g(a, **{'b': 1})\n",
        "def f(a):\n    return g(a, b=1)\n",
    ),
    "PIE810 startswith": (
        "def f(s: str):\n    return s.startswith('a') or s.startswith('b')\n",
        "def f(s: str):\n    return s.startswith(('a', 'b'))\n",
    ),
    "SIM101 isinstance": (
        "def f(x):\n    return isinstance(x, int) or isinstance(x, float)\n",
        "def f(x):\n    return isinstance(x, (int, float))\n",
    ),
    "isinstance 1-tuple": (
        "def f(x):\n    return isinstance(x, (int,))\n",
        "def f(x):\n    return isinstance(x, int)\n",
    ),
    "except 1-tuple": (
        "def f(p):\n    try:\n        return g(p)\n    except (KeyError,):\n        return None\n",
        "def f(p):\n    try:\n        return g(p)\n    except KeyError:\n        return None\n",
    ),
    "raise class": (
        "def f(p):\n    if p:\n        raise ValueError()\n",
        "def f(p):\n    if p:\n        raise ValueError\n",
    ),
    "guard continue": (
        "def f(xs):\n    for x in xs:\n        if x.ok:\n            g(x)\n            h(x)\n",
        "def f(xs):\n    for x in xs:\n        if not x.ok:\n            continue\n        g(x)\n        h(x)\n",
    ),
    "guard return": (
        "def f(x):\n    if x.ok:\n        g(x)\n        h(x)\n",
        "def f(x):\n    if not x.ok:\n        return\n    g(x)\n    h(x)\n",
    ),
    "walrus": (
        "def f(s):\n    m = re.match('a', s)\n    if m:\n        return m.group(0)\n    return None\n",
        "def f(s):\n    if m := re.match('a', s):\n        return m.group(0)\n    return None\n",
    ),
    "elif after return": (
        "def f(a):\n    if a == 1:\n        return 'x'\n    elif a == 2:\n        return 'y'\n    return 'z'\n",
        "def f(a):\n    if a == 1:\n        return 'x'\n    if a == 2:\n        return 'y'\n    return 'z'\n",
    ),
    "join listcomp": (
        "def f(ys):\n    return ', '.join([str(y) for y in ys])\n",
        "def f(ys):\n    return ', '.join(str(y) for y in ys)\n",
    ),
    "local rename": (
        "def f(a):\n    tmp = g(a)\n    return h(tmp)\n",
        "def f(a):\n    value = g(a)\n    return h(value)\n",
    ),
    "dict.get None": (
        "def f(d: dict, k):\n    return d.get(k, None)\n",
        "def f(d: dict, k):\n    return d.get(k)\n",
    ),
    "keys()": (
        "def f(d: dict):\n    for k in d.keys():\n        g(k)\n",
        "def f(d: dict):\n    for k in d:\n        g(k)\n",
    ),
    "in keys": (
        "def f(d: dict, k):\n    return k in d.keys()\n",
        "def f(d: dict, k):\n    return k in d\n",
    ),
    "not in": ("def f(a, b):\n    return not a in b\n", "def f(a, b):\n    return a not in b\n"),
    "is not": ("def f(a):\n    return not a is None\n", "def f(a):\n    return a is not None\n"),
    "yoda": ("def f(a):\n    return 'x' == a\n", "def f(a):\n    return a == 'x'\n"),
    "swap if else": (
        "def f(a):\n    if not a:\n        return 1\n    else:\n        return 2\n",
        "def f(a):\n    if a:\n        return 2\n    else:\n        return 1\n",
    ),
    "early return else": (
        "def f(a):\n    if a:\n        x = 1\n    else:\n        return 0\n    return x\n",
        "def f(a):\n    if not a:\n        return 0\n    x = 1\n    return x\n",
    ),
    "flag to for-else": (
        "def f(xs):\n    found = False\n    for x in xs:\n        if x:\n            found = True\n            break\n    if not found:\n        g()\n",
        "def f(xs):\n    for x in xs:\n        if x:\n            break\n    else:\n        g()\n",
    ),
    "append loop to comp": (
        "def f(ys):\n    out = []\n    for y in ys:\n        out.append(y * 2)\n    return out\n",
        "def f(ys):\n    return [y * 2 for y in ys]\n",
    ),
    "append filter comp": (
        "def f(ys):\n    out = []\n    for y in ys:\n        if y:\n            out.append(y)\n    return out\n",
        "def f(ys):\n    return [y for y in ys if y]\n",
    ),
    "dict loop to comp": (
        "def f(ys):\n    out = {}\n    for k, v in ys:\n        out[k] = v\n    return out\n",
        "def f(ys):\n    return {k: v for k, v in ys}\n",
    ),
    "pathlib join": (
        "def f(a):\n    return os.path.join(a, 'x')\n",
        "def f(a):\n    return os.path.join(a, 'x')\n# c\n",
    ),
    "comment only": ("def f(a):\n    return a  # x\n", "def f(a):\n    # why\n    return a\n"),
    "dataclass field order kw": (
        "def f(a, b):\n    return g(x=a, y=b)\n",
        "def f(a, b):\n    return g(y=b, x=a)\n",
    ),
    "tuple unpack idx": (
        "def f(t):\n    a = t[0]\n    b = t[1]\n    return a + b\n",
        "def f(t):\n    a, b = t[0], t[1]\n    return a + b\n",
    ),
    "format percent tuple": (
        "def f(a):\n    return 'x %s' % (a,)\n",
        "def f(a):\n    return 'x %s' % a\n",
    ),
    "str concat join": (
        "def f(a, b):\n    return a + '/' + b\n",
        "def f(a, b):\n    return '/'.join((a, b))\n",
    ),
}


def main(names: list[str]) -> None:
    proven = total = 0
    for name, (b, a) in CASES.items():
        if names and not any(n in name for n in names):
            continue
        with tempfile.TemporaryDirectory() as d:
            try:
                an = analyse_commit(
                    Path(d), {"pkg/__init__.py": "", "pkg/mod.py": HDR + b}, {"pkg/mod.py": HDR + a}
                )
                v = an.model.summary.verdict
                why = [
                    f"{f.kind}:{f.symbol}"
                    for f in an.findings
                    if f.kind.startswith(("behavior.changed", "guard."))
                ]
            except Exception as e:  # noqa: BLE001 - a crash is a result of the probe
                v, why = "CRASH", [repr(e)]
        total += 1
        proven += v == "pure-refactor"
        print(f"{'OK ' if v == 'pure-refactor' else '-- '}{name:24} {v:30} {' '.join(why)[:90]}")
    print(f"{proven} of {total} proven pure")


if __name__ == "__main__":
    main(sys.argv[1:])
