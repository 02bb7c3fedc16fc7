"""The `visage-server` command that `pip install visage-server` (or `visage[server]`) puts on
PATH: visage-server's own executable, which this package carries, started with the models of
the installed `visage` wheel (docs/server.md, docs/install.md)."""

import importlib.util
import os
import sys

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "visage-server")


def main() -> None:
    spec = importlib.util.find_spec("visage")
    if spec is not None and spec.submodule_search_locations:
        models = os.path.join(list(spec.submodule_search_locations)[0], "models")
        os.environ.setdefault("VISAGE_WEIGHTS", models)
    os.execv(BINARY, [BINARY] + sys.argv[1:])


if __name__ == "__main__":
    main()
