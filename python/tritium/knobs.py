"""``triton.knobs`` for programs run on tritium: the settings Triton keeps there, as
attributes that read (and, when set, write) the environment variables tritium honours.

Only the knobs that mean something here are present; each is a plain attribute group
(`runtime`, `cache`, `autotuning`, `compilation`, `nvidia`). Triton's own knob machinery
(descriptors, scoped overrides) is not reproduced: `base_knobs.copy()`/`reset()` exist so
code that snapshots knobs keeps working.
"""

import os

__all__ = ["base_knobs", "runtime", "cache", "autotuning", "compilation", "nvidia",
           "propagate_env"]

propagate_env = True


def _flag(*names):
    for name in names:
        value = os.environ.get(name)
        if value is not None:
            return value.strip().lower() in ("1", "true", "yes", "on")
    return False


class base_knobs:
    """A group of knobs. `knob_descriptors` is empty: tritium's knobs are properties."""
    knob_descriptors = {}

    def copy(self):
        return self

    def reset(self):
        return self


class _Runtime(base_knobs):
    @property
    def interpret(self):
        """True when kernels run in the interpreter (TRITON_INTERPRET or TRITIUM_INTERPRET)."""
        return _flag("TRITON_INTERPRET", "TRITIUM_INTERPRET")

    @interpret.setter
    def interpret(self, value):
        os.environ["TRITIUM_INTERPRET"] = "1" if value else "0"

    @property
    def debug(self):
        return _flag("TRITON_DEBUG")


class _Cache(base_knobs):
    @property
    def dir(self):
        from . import cache_dir
        return cache_dir()

    @dir.setter
    def dir(self, value):
        os.environ["TRITIUM_CACHE_DIR"] = str(value)


class _Autotuning(base_knobs):
    @property
    def print(self):
        return _flag("TRITON_PRINT_AUTOTUNING", "TRITIUM_PRINT_AUTOTUNING")

    @print.setter
    def print(self, value):
        os.environ["TRITIUM_PRINT_AUTOTUNING"] = "1" if value else "0"


class _Compilation(base_knobs):
    @property
    def default_fp_fusion(self):
        return os.environ.get("TRITON_DEFAULT_FP_FUSION", "1").strip() not in ("0", "false")


class _Ptxas:
    @property
    def version(self):
        """The CUDA version of the toolchain side ("12.8"): tritium hands PTX to the driver,
        so this is the driver's CUDA version when torch can tell it, else torch's build's."""
        try:
            import torch
            if torch.version.cuda:
                return str(torch.version.cuda)
        except ImportError:
            pass
        return "12.0"


class _Nvidia(base_knobs):
    ptxas = _Ptxas()


runtime = _Runtime()
cache = _Cache()
autotuning = _Autotuning()
compilation = _Compilation()
nvidia = _Nvidia()
