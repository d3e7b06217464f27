"""The exceptions tritium raises. The C++ extension (tritium._C) translates its C++ errors
into these: tritium::CompileError -> CompilationError, tritium::LaunchError -> LaunchError,
tritium::InternalError -> InternalError.

As in Triton, ``TritonError`` is the base of them all, so ``except triton.TritonError``
(and ``pytest.raises(triton.TritonError, match=...)``) catches a compile error."""

__all__ = ["TritonError", "CompilationError", "CompileTimeAssertionFailure", "LaunchError", "ArgumentTypeError",
           "LaunchOptionError", "InternalError", "OutOfResources", "InterpreterError"]


class TritonError(Exception):
    """The base of the errors tritium raises (Triton's ``triton.TritonError``)."""


class CompilationError(TritonError):
    """The kernel source is wrong (or, in the interpreter, did something a kernel may not,
    such as an out-of-bounds access). ``str()`` is the full located report::

        kernels.py:12:17: error: undefined name 'BLOK'
            offs = tl.arange(0, BLOK)
                                ^
    Attributes: ``file``, ``line`` and ``col`` (1-based, the user's real file; 0 when
    unknown), ``message`` (the bare message), ``excerpt`` (source line and caret)."""

    def __init__(self, message, file="", line=0, col=0, excerpt="", report=None):
        self.message = message
        # Triton's CompilationError carries the error that caused it as __cause__ (tests
        # and programs read the bare message from str(e.__cause__)); tritium's cause is
        # the bare message itself.
        self.__cause__ = _Cause(message)
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

    @property
    def error_message(self):
        """The bare message (Triton's ``CompilationError.error_message``)."""
        return self.message

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.col, self.excerpt,
                             self.report))


class CompileTimeAssertionFailure(CompilationError):
    """A ``tl.static_assert`` whose condition is false (Triton's class of that name; a
    CompilationError). The assertion is the error itself, so it has no ``__cause__``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__cause__ = None


class _Cause(Exception):
    """The bare message of a CompilationError, as its ``__cause__``."""


# Triton raises InterpreterError for errors in kernels run by its interpreter; tritium
# reports those as CompilationError (located like every compile error), and the name
# stands for the same class so `pytest.raises(InterpreterError)` and `except` agree.
InterpreterError = CompilationError


class LaunchError(TritonError, RuntimeError):
    """The call is wrong: argument count or type, grid, device, driver failure. The message
    names the kernel and, where there is one, the argument."""


class ArgumentTypeError(LaunchError, TypeError):
    """An argument of a type no kernel parameter accepts (also a TypeError, as in Triton)."""


class LaunchOptionError(LaunchError, AssertionError):
    """A launch option out of its range (``num_warps=3``, ``num_stages=0``, ``num_ctas=3``).
    Also an AssertionError: Triton checks these with ``assert``."""


class InternalError(TritonError, RuntimeError):
    """A bug in tritium itself; the message names the pass and op. Please report it."""


class OutOfResources(LaunchError):
    """A kernel needs more of a GPU resource (shared memory, registers) than the device has;
    Triton's ``triton.runtime.errors.OutOfResources``."""

    def __init__(self, required=0, limit=0, name="", message=None):
        self.required = required
        self.limit = limit
        self.name = name
        if message is None:
            message = (f"out of resource: {name}, Required: {required}, "
                       f"Hardware limit: {limit}")
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (self.required, self.limit, self.name, str(self)))
