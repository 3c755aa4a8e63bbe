"""The last few results of a slow computation, by key, safe across threads (no Qt).

The layers panel's analyses (head types, mixing matrices, their means) each take a pass
of a real model; a sentence seen again is answered from here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Kept:
    """At most ``size`` results, the least recently put forgotten first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict = OrderedDict()

    def get(self, key):
        """The result kept for ``key``, else None."""
        with self._lock:
            return self._items.get(key)

    def put(self, key, value) -> None:
        """Keep ``value`` for ``key``."""
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._items.clear()
