"""The exceptions tritium raises. The C++ extension (tritium._C) translates its C++ errors
into these: tritium::CompileError -> CompilationError, tritium::LaunchError -> LaunchError,
tritium::InternalError -> InternalError."""

__all__ = ["CompilationError", "LaunchError", "ArgumentTypeError", "InternalError"]


class CompilationError(Exception):
    """The kernel source is wrong (or, in the interpreter, did something a kernel may not,
    such as an out-of-bounds access). ``str()`` is the full located report::

        kernels.py:12:17: error: undefined name 'BLOK'
            offs = tl.arange(0, BLOK)
                                ^
    Attributes: ``file``, ``line`` and ``col`` (1-based, the user's real file; 0 when
    unknown), ``message`` (the bare message), ``excerpt`` (source line and caret)."""

    def __init__(self, message, file="", line=0, col=0, excerpt="", report=None):
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        self.excerpt = excerpt
        if report is None:
            where = f"{file}:{line}:{col}: " if file and line else ""
            report = f"{where}error: {message}" + (f"\n{excerpt}" if excerpt else "")
        self.report = report
        super().__init__(report)

    def __str__(self):
        return self.report

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.col, self.excerpt,
                             self.report))


class LaunchError(RuntimeError):
    """The call is wrong: argument count or type, grid, device, driver failure. The message
    names the kernel and, where there is one, the argument."""


class ArgumentTypeError(LaunchError, TypeError):
    """An argument of a type no kernel parameter accepts (also a TypeError, as in Triton)."""


class InternalError(RuntimeError):
    """A bug in tritium itself; the message names the pass and op. Please report it."""
