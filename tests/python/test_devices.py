"""Arguments on two devices (DESIGN: Devices, streams, graphs): an error naming the kernel
and both arguments, raised before the driver, a context, a compile or a load is needed, so
it is checked here without a GPU with torch-like fakes that say their device."""

import os
import pathlib
import subprocess
import sys
import textwrap

import tritium
import tritium.language as tl


@tritium.jit
def two_device_copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


# The launches run in a child without TRITIUM_INTERPRET (this suite interprets everything):
# there the fakes, being "device memory", choose the GPU path, which must stop at placement.
PROGRAM = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    import tritium
    import test_devices as t

    class DType:
        def __str__(self):
            return "torch.float32"

    class Device:
        type = "cuda"

    class CudaTensor:
        is_cuda = True
        dtype = DType()
        device = Device()

        def __init__(self, address, ordinal):
            self.address, self.ordinal = address, ordinal

        def data_ptr(self):
            return self.address  # never dereferenced: the launch stops before

        def get_device(self):
            return self.ordinal

    # stream=0 (the default stream, a raw handle): torch's current stream is not asked.
    a, b = CudaTensor(0x10000, 0), CudaTensor(0x20000, 1)
    for launch in (lambda: t.two_device_copy[(1,)](a, b, 4, BLOCK=16, stream=0),
                   lambda: t.two_device_copy.warmup(a, b, 4, BLOCK=16, grid=(1,), stream=0),
                   lambda: t.two_device_copy[(1,)](src=b, dst=a, n=4, BLOCK=16, stream=0)):
        try:
            launch()
        except tritium.LaunchError as e:
            print("ERROR:", e)
        else:
            print("ERROR: none")
""")


def test_arguments_on_two_devices_are_refused_by_name():
    root = pathlib.Path(__file__).resolve().parent
    env = dict(os.environ)
    env.pop("TRITIUM_INTERPRET", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    result = subprocess.run([sys.executable, "-c", PROGRAM.format(root=str(root))], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 3, result.stdout + result.stderr
    for line, (first, first_device, second, second_device) in zip(
            errors, [("src", 0, "dst", 1), ("src", 0, "dst", 1), ("src", 1, "dst", 0)]):
        assert "kernel 'two_device_copy'" in line, line
        assert f"argument '{second}': is on device {second_device}" in line, line
        assert f"argument '{first}' is on device {first_device}" in line, line
        # Not the driver's complaint: the placement comes first.
        assert "driver" not in line.lower(), line
