"""Compatibility shim: the Python binding is now the package ``python/contact_solvers/``
(``pip install .`` at the repository's root installs it with the library inside).

Scripts that put this folder on ``sys.path`` (as the examples here do) keep working: importing
this file loads the package from the source tree in its place. New code should
``pip install`` the package instead.
"""

import importlib.util
import sys
from pathlib import Path

_package = Path(__file__).resolve().parents[2] / "python" / "contact_solvers"
_spec = importlib.util.spec_from_file_location(
    __name__, _package / "__init__.py", submodule_search_locations=[str(_package)]
)
_module = importlib.util.module_from_spec(_spec)
sys.modules[__name__] = _module  # `import contact_solvers` returns the package from now on
_spec.loader.exec_module(_module)
