"""The `visage` command that `pip install visage` puts on PATH: the command line of
docs/cli.md, run by the wheel's own shared object (`visage/libvisage.so`, which carries the
command line beside the engine; docs/install.md says why not a second executable).

A module of its own, beside the `visage` package rather than in it, so that starting the
command imports neither the package nor numpy.
"""

import ctypes
import importlib.util
import os
import signal
import sys


def package_folder() -> str:
    """The installed `visage` package's folder, found without importing it."""
    spec = importlib.util.find_spec("visage")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("visage: the visage package is not installed")
    return list(spec.submodule_search_locations)[0]


def main() -> None:
    folder = package_folder()
    # The models the wheel carries, where the command line looks first (BundledWeights).
    os.environ.setdefault("VISAGE_WEIGHTS", os.path.join(folder, "models"))
    library = ctypes.CDLL(os.environ.get("VISAGE_LIBRARY") or os.path.join(folder, "libvisage.so"))
    run = library.visage_command_line
    run.restype = ctypes.c_int32
    run.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)]
    # The command behaves as the executable does: Ctrl-C and a closed pipe end it as they
    # would (Python ignores SIGPIPE and turns SIGINT into an exception, which a call into the
    # library would only see on return).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    arguments = [b"visage"] + [os.fsencode(argument) for argument in sys.argv[1:]]
    argv = (ctypes.c_char_p * (len(arguments) + 1))(*arguments, None)
    status = run(len(arguments), argv)
    # Straight out: the library has flushed what it wrote, and Python's own teardown has
    # nothing to add.
    os._exit(status)


if __name__ == "__main__":
    main()
