"""The one device flexarray computes on: the CPU."""


class Device:
    """The CPU device: a singleton, hashable, equal to itself and to the string ``'cpu'``
    (NumPy's device is that string, torch's CPU device compares equal to it, and every
    ``device=`` argument takes it; cubed compares its arrays' ``"cpu"`` with it)."""

    __slots__ = ()

    def __eq__(self, other):
        return other is self or (type(other) is str and other == "cpu")

    def __hash__(self):
        return hash("cpu")

    def __repr__(self):
        return "flexarray.Device('cpu')"

    def __reduce__(self):
        return (_cpu, ())


CPU = Device()


def _cpu():
    return CPU


def check_device(device, func: str = "", name: str = "device") -> None:
    """Accept ``None``, the CPU device or the string ``'cpu'``; ValueError otherwise."""
    if device is None or device is CPU or (type(device) is str and device == "cpu"):
        return
    where = f"{func}: " if func else ""
    raise ValueError(f"{where}'{name}' must be None or {CPU!r} (flexarray has one device), "
                     f"got {device!r}")
