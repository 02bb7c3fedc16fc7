#!/usr/bin/env python3
"""Images per second: one `visage landmark` process at 1 and 2 threads against the Spark job
(Examples/spark/visage_spark.py) at local[2], on the same images.

    .venv-spark/bin/python Benchmarks/spark_throughput.py [--visage .build/release/visage] [--repeat 4]

The images are every committed JPEG and PNG under Tests/Fixtures/detector/images and
Tests/Fixtures/landmarker/frames, listed --repeat times (copies under a temporary folder, so
Spark reads each as a file of its own). The landmarker runs with --num-faces 4 --blendshapes.
Each configuration runs --rounds times and the best wall time counts. The Spark figure
includes starting the JVM and the session; the time of the same job over one image is printed
too, so the steady rate can be read off, and so is a job that only reads the same files into
Spark's Python workers (no visage), which shows what Spark itself costs per file.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTIONS = ["--num-faces", "4", "--blendshapes"]


def timed(command, **kw):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    visage = os.path.abspath(arguments.visage)
    sources = sorted(glob.glob(os.path.join(ROOT, "Tests/Fixtures/detector/images/*"))
                     + glob.glob(os.path.join(ROOT, "Tests/Fixtures/landmarker/frames/*/*.jpg")))
    with tempfile.TemporaryDirectory() as work:
        images = os.path.join(work, "images")
        one = os.path.join(work, "one")
        os.makedirs(images)
        os.makedirs(one)
        paths = []
        for r in range(arguments.repeat):
            for i, source in enumerate(sources):
                target = os.path.join(images, f"{r:02}-{i:03}-{os.path.basename(source)}")
                shutil.copyfile(source, target)
                paths.append(target)
        shutil.copyfile(sources[0], os.path.join(one, os.path.basename(sources[0])))
        listing = os.path.join(work, "paths.txt")
        with open(listing, "w") as f:
            f.write("\n".join(paths) + "\n")
        print(f"{len(paths)} images ({len(sources)} files x {arguments.repeat}), landmark {' '.join(OPTIONS)}")

        def best(command):
            return min(timed(command) for _ in range(arguments.rounds))

        for threads in (1, 2):
            seconds = best([visage, "landmark", "--paths-from", listing, "--output", "json",
                            "--threads", str(threads)] + OPTIONS)
            print(f"  one process, {threads} thread{'s' if threads > 1 else ''}: {seconds:6.2f} s  "
                  f"{len(paths) / seconds:6.1f} images/s")

        def spark(folder, output):
            return [sys.executable, os.path.join(ROOT, "Examples/spark/visage_spark.py"), folder,
                    "--task", "landmark", "--output", os.path.join(work, output), "--visage", visage,
                    "--weights", os.path.join(ROOT, "Weights"), "--master", "local[2]", "--partitions", "2",
                    "--"] + OPTIONS

        def read_only(folder):
            return [sys.executable, os.path.abspath(__file__), "--read-only", folder]

        seconds = best(spark(images, "all.parquet"))
        overhead = best(spark(one, "one.parquet"))
        print(f"  Spark local[2], 2 partitions: {seconds:6.2f} s  {len(paths) / seconds:6.1f} images/s "
              f"(the same job over one image: {overhead:.2f} s; "
              f"{(len(paths) - 1) / max(seconds - overhead, 1e-9):.1f} images/s after it)")
        reading = best(read_only(images))
        reading_one = best(read_only(one))
        print(f"  Spark local[2], reading the files only: {reading:6.2f} s (over one image: {reading_one:.2f} s; "
              f"{(len(paths) - 1) / max(reading - reading_one, 1e-9):.1f} images/s after it)")


def read_only(folder):
    """The Spark job's input side alone: binaryFiles into two partitions of Python workers."""
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[2]").getOrCreate()
    files = spark.sparkContext.binaryFiles(folder, minPartitions=2)
    if files.getNumPartitions() < 2:
        files = files.repartition(2)
    files.map(lambda record: len(record[1])).sum()
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--read-only":
        read_only(sys.argv[2])
    else:
        main()
