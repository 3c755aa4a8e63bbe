"""Import torch when it is installed; tests that need it skip cleanly otherwise."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install attnviz[test])")
