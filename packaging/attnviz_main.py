"""Entry script of the frozen app: the same as the ``attnviz`` console command.

PyInstaller needs a script file, not an entry point; keeping it this thin means the
frozen app and ``python -m attnviz`` run exactly the same code.
"""

import sys

from attnviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
