#!/usr/bin/env python3
"""Runs Examples/spark/visage_spark.py for real, on PySpark in local mode, and checks its rows.

    .venv-spark/bin/python Examples/spark/test_visage_spark.py [--visage .build/release/visage]

1. The job over test images plus broken files (truncated PNG, text named .jpg, empty file)
   with local[2] and two partitions: one Parquet row per input; each good row's `result` is
   exactly what `visage landmark --output json` prints for the same file (but `source`); each
   broken file an error row.
2. The same job through a wrapper that kills visage the first time it runs: the task fails,
   Spark retries it (local[2,2] allows two attempts) and every row is still there.

Exits non-zero on any failure, Spark failing to start included: nothing is skipped.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMAGES = ["Tests/Fixtures/images/astronaut.png", "Tests/Fixtures/images/camera.png",
          "Tests/Fixtures/detector/images/multiface_800x600.jpg", "Tests/Fixtures/detector/images/format_gray.jpg",
          "Tests/Fixtures/detector/images/noface_gradient.png"]
VISAGE_OPTIONS = ["--num-faces", "4", "--blendshapes", "--transformation-matrices"]


def make_inputs(folder):
    """The test images and three broken files; returns their paths."""
    paths = []
    for image in IMAGES:
        target = os.path.join(folder, os.path.basename(image))
        shutil.copyfile(os.path.join(ROOT, image), target)
        paths.append(target)
    broken = {"truncated.png": open(os.path.join(ROOT, IMAGES[0]), "rb").read()[:300],
              "text.jpg": b"this is not an image\n", "empty.png": b""}
    for name, data in broken.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        paths.append(os.path.join(folder, name))
    return paths


def run_job(folder, output, visage, master):
    command = [sys.executable, os.path.join(HERE, "visage_spark.py"), folder, "--task", "landmark",
               "--output", output, "--visage", visage, "--weights", os.path.join(ROOT, "Weights"),
               "--partitions", "2", "--master", master, "--"] + VISAGE_OPTIONS
    subprocess.run(command, check=True)


def read_rows(output):
    import pyarrow.parquet as pq
    rows = pq.read_table(output).to_pylist()
    return {row["source"].removeprefix("file:"): row for row in rows}


def expected(paths, visage):
    """What visage prints for each file run directly, by path."""
    run = subprocess.run([visage, "landmark", "--output", "json"] + VISAGE_OPTIONS + paths,
                         capture_output=True, text=True)
    assert run.returncode == 1, f"the direct run should report the broken files: {run.returncode}"
    return {answer["source"]: answer for answer in map(json.loads, run.stdout.splitlines())}


def check(rows, paths, direct):
    assert sorted(rows) == sorted(paths), f"one row per input: got {sorted(rows)}"
    for path in paths:
        row, answer = rows[path], direct[path]
        if "error" in answer:
            assert row["error"] and row["result"] is None and row["faceCount"] is None, row
            continue
        assert row["error"] is None, row["error"]
        result = json.loads(row["result"])
        result["source"] = answer["source"]
        assert result == answer, f"{path}: the job's result differs from visage's own"
        assert (row["width"], row["height"]) == (answer["width"], answer["height"])
        assert row["faceCount"] == len(answer["faceLandmarks"])
    faces = sum(row["faceCount"] or 0 for row in rows.values())
    errors = sum(1 for row in rows.values() if row["error"])
    print(f"  {len(rows)} rows, {faces} faces, {errors} error rows: as visage gives them")


def crash_once_wrapper(folder, visage):
    """A script that kills itself on its first run and runs visage after that."""
    marker = os.path.join(folder, "crashed-once")
    wrapper = os.path.join(folder, "visage")
    with open(wrapper, "w") as f:
        f.write(f"""#!/bin/sh
if [ ! -e '{marker}' ]; then touch '{marker}'; kill -9 $$; fi
exec '{os.path.abspath(visage)}' "$@"
""")
    os.chmod(wrapper, 0o755)
    return wrapper, marker


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    visage = os.path.abspath(parser.parse_args().visage)
    assert os.access(visage, os.X_OK), f"no visage binary at {visage}: run swift build -c release"
    with tempfile.TemporaryDirectory() as work:
        inputs = os.path.join(work, "images")
        os.makedirs(inputs)
        paths = make_inputs(inputs)
        direct = expected(paths, visage)

        print("job over", len(paths), "files, local[2]")
        run_job(inputs, os.path.join(work, "out.parquet"), visage, "local[2]")
        check(read_rows(os.path.join(work, "out.parquet")), paths, direct)

        print("job whose visage is killed once, local[2,2]")
        tools = os.path.join(work, "tools")
        os.makedirs(tools)
        wrapper, marker = crash_once_wrapper(tools, visage)
        run_job(inputs, os.path.join(work, "retried.parquet"), wrapper, "local[2,2]")
        assert os.path.exists(marker), "the wrapper never crashed"
        check(read_rows(os.path.join(work, "retried.parquet")), paths, direct)
        assert not glob.glob(os.path.join(work, "*.parquet", "_temporary"))
    print("spark job: ok")


if __name__ == "__main__":
    main()
