"""What an in-process inner pytest session leaves loaded when it ends.

pytester (and tests/sim/xdist_run.py) drop the modules an inner session
imported, so that its test modules cannot clash with a later session's. fairdie's
own modules stay: its registries keep objects made by modules they loaded on
demand (a board's sections, parsed by its subject's module, cached by
fairdie.board), and a module dropped and loaded again would make classes that
those objects are no longer instances of."""

from __future__ import annotations

import re

from _pytest.pytester import SysModulesSnapshot


def kept(name: str) -> bool:
    """Whether the module ``name`` stays loaded: fairdie's but for its subjects'
    suites (test modules, which an inner session imports under its own options),
    and what pytester itself keeps (zope, readline)."""
    if re.match(r"fairdie\.subjects\.\w+\.suite(\.|$)", name):
        return False
    return name == "fairdie" or name.startswith(("fairdie.", "zope", "readline"))


def snapshot() -> SysModulesSnapshot:
    """``sys.modules`` now; its ``restore()`` drops what was imported since,
    except what :func:`kept` keeps."""
    return SysModulesSnapshot(preserve=kept)
