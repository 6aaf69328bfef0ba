"""An import in a class body is not lazy: it runs with the module and binds a class attribute,
so it is never reported as a ``lazy-import.retained`` to hoist (real ``email/message.py``:
``from email.iterators import walk`` in ``class Message`` makes ``Message.walk``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.gitrepo import analyse_commit


def test_class_body_import_is_not_a_lazy_import_but_a_method_local_one_is(tmp_path: Path):
    spec = importlib.util.find_spec("email.message")
    assert spec is not None and spec.origin
    real = Path(spec.origin).read_text(encoding="utf-8")
    assert "    # I.e. def walk(self): ...\n    from email.iterators import walk\n" in real
    after = real.replace('    """Basic message object.', '    """A basic message object.', 1)
    assert after != real
    a = analyse_commit(
        tmp_path, {"email/__init__.py": "", "email/message.py": real}, {"email/message.py": after}
    )
    lazies = {
        (f.symbol, f.details["scope"]) for f in a.findings if f.kind == "lazy-import.retained"
    }
    assert ("default", "MIMEPart.__init__") in lazies  # method-local: run when called
    assert not any(symbol == "walk" for symbol, _scope in lazies)
    codemods = [f.details["followup_diff"] for f in a.findings if f.kind == "lazy-import.retained"]
    assert not any("-    from email.iterators import walk" in d for d in codemods)
