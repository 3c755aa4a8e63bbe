"""``python -m attnviz``: the same as the ``attnviz`` command."""

import sys

from attnviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
