"""``python -m tritium SCRIPT.py [ARGS]``: runs an unmodified Triton program on tritium.

``import triton`` (and its submodules) inside the program resolve to tritium
(tritium.triton_alias); the script runs as ``__main__`` with ``sys.argv`` as if it had
been started directly. ``python -m tritium -m MODULE [ARGS]`` runs a module the same way.
"""

import runpy
import sys

from .triton_alias import use_as_triton

USAGE = "usage: python -m tritium SCRIPT.py [ARGS...]  |  python -m tritium -m MODULE [ARGS...]"


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if not use_as_triton():
        return 1
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    sys.argv = argv
    # The script's directory comes first on the path, as when Python runs it directly.
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
