#!/usr/bin/env bash
# Makes .venv with LiteRT and MediaPipe for Benchmarks/compare.py and Tools/make_*_fixtures.py.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install -q -r Benchmarks/requirements.txt
echo "ready: .venv/bin/python"
