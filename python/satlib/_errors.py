class SatlibError(RuntimeError):
    """What the library or the machine could not do: no device, no library, a CUDA error or a
    kernel timeout. Argument errors are TypeError / ValueError."""
