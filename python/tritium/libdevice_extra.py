"""``triton.language.extra`` (and ``triton.language.extra.cuda``) under tritium: the
namespace that holds ``libdevice``."""

from . import libdevice

__all__ = ["libdevice"]
cuda = None  # set below: triton.language.extra.cuda is this same namespace
import sys as _sys
cuda = _sys.modules[__name__]
