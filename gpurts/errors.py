"""Errors of the OpenCL runtime. jitgpu catches `DeviceError` (and so `BuildError`) at the edge of
a nest, logs the message in one line and falls back to OpenMP (SPEC section 10)."""


class DeviceError(Exception):
    """The device could not do what was asked: out of memory, lost device, failed transfer."""


class BuildError(DeviceError):
    """An OpenCL program did not build; `log` holds the compiler's build log."""

    def __init__(self, message: str, log: str):
        super().__init__(message + ("\n" + log if log else ""))
        self.message = message
        self.log = log


# OpenCL status codes that mean "no memory" (the first three) or "more than one allocation may be"
_MEMORY_CODES = {-4: "MEM_OBJECT_ALLOCATION_FAILURE", -5: "OUT_OF_RESOURCES",
                 -6: "OUT_OF_HOST_MEMORY", -61: "INVALID_BUFFER_SIZE"}


def device_error(what: str, device, error: Exception) -> DeviceError:
    """The `DeviceError` for a pyopencl error: says what failed, on which device, and, for
    memory codes, that the device ran out of memory. The caller raises it `from error`."""
    code = getattr(error, "code", None)
    if code in _MEMORY_CODES:
        return DeviceError(f"out of device memory: {what} on {device.label} failed "
                           f"({_MEMORY_CODES[code]})")
    return DeviceError(f"{what} on {device.label} failed: {error}")
