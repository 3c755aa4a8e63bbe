"""Shared fixtures for the UI tests: isolated QSettings, a fresh state and resolver."""

from __future__ import annotations

import ctypes
import sys
import warnings

import PySide6
import pytest
from PySide6.QtCore import QCoreApplication, QSettings

from attnviz.model.resolve import Resolver
from attnviz.model.state import AttentionState


def _guard_pyside_refcount_bug() -> None:
    """Keep None/True/False alive under PySide6 6.12.0 on Python 3.11.

    That release drops one reference to ``None`` on every call of a void method (6.11.3 does
    not); on 3.11, where ``None`` is not immortal, the process aborts ("none_dealloc") after
    a few thousand Qt calls. Python 3.12+ makes these objects immortal, which is what this
    mimics: a huge reference count that a test session can never use up. The real fix is a
    dependency pin (PySide6 != 6.12.0 on Python < 3.12); this only lets the suite finish.
    """
    if sys.version_info >= (3, 12) or not PySide6.__version__.startswith("6.12.0"):
        return
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    warnings.warn(
        "PySide6 6.12.0 on Python < 3.12 leaks references to None; the UI tests work around it",
        stacklevel=1,
    )


_guard_pyside_refcount_bug()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path_factory):
    """Point every QSettings of the test at a fresh temporary folder (INI files).

    Autouse, so no UI test can read or write the user's real settings, even by accident.
    Returns the folder.
    """
    folder = tmp_path_factory.mktemp("settings")
    QCoreApplication.setOrganizationName("attnviz-tests")
    QCoreApplication.setApplicationName("attnviz-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(folder))
    yield folder
    QSettings().clear()


@pytest.fixture
def state():
    """A fresh state: the default is the chapter's hand-worked example (banco)."""
    return AttentionState()


@pytest.fixture
def resolver(state):
    """A resolver listening to ``state``."""
    return Resolver(state)
