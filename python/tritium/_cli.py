"""The `tritium` console script of the installed package: runs the CLI binary the wheel ships
in tritium/_bin (linked against the package's libtritium.so), with the same arguments."""

import os
import pathlib
import sys


def binary():
    """The path of the CLI inside the package."""
    return pathlib.Path(__file__).resolve().parent / "_bin" / "tritium"


def main():
    path = binary()
    if not path.is_file():
        sys.exit(f"tritium: the CLI is not part of this installation ({path} is missing); "
                 "build it with CMake (build/tools/tritium) or install the wheel")
    os.execv(str(path), [str(path), *sys.argv[1:]])


if __name__ == "__main__":
    main()
