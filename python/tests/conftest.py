"""Tests of the installed (or source-tree) package ``contact_solvers``.

``tests/packaging/python_package.rs`` runs them twice: from ``python/`` against the source tree
(with ``CONTACT_SOLVERS_LIB``), and from a temporary folder in a fresh venv where ``pip install`` put the
package, so that ``import contact_solvers`` is the installed one. ``CONTACT_SOLVERS_EXPECT_INSTALLED=1``
makes ``test_installed_package_is_used`` check that.
"""
