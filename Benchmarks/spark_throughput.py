#!/usr/bin/env python3
"""Images per second: the Spark job (Examples/spark/visage_spark.py) at local[2] against one
`visage landmark` process at 1 and 2 threads, on the same images.

    .venv-spark/bin/python Benchmarks/spark_throughput.py [--visage .build/release/visage]
        [--repeat 16] [--rounds 3] [--files-repeat 4] [--parquet-only]

The images are every committed JPEG and PNG under Tests/Fixtures/detector/images and
Tests/Fixtures/landmarker/frames, --repeat times over. The landmarker runs with
--num-faces 4 --blendshapes.

Parquet (the issue 33 figure): the images as one Parquet file in Hugging Face's Image layout
({bytes, path} structs, row groups of 16 images). The job times itself (the seconds it prints,
from the session started to the rows written, so the JVM and session start are excluded). It
also runs over the first 32 images, and the difference between the two is the rate once the
job is under way (Python workers started, each visage's models loaded), printed as a share of
one visage process with 2 threads over the same images, and as a share of that process's own
rate once under way (the same difference over the first 32 images, so that its model loading
is left out as well). Rounds alternate the configurations and the best time of each counts.

Files (unless --parquet-only): the same images, --files-repeat times over, copied as files of
their own and read with binaryFiles; the Spark figure includes starting the JVM and the
session; a job over one image, and a job that only reads the files into Spark's Python
workers (no visage), show what Spark itself costs per file.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPTIONS = ["--num-faces", "4", "--blendshapes"]
SMALL = 32


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def job_seconds(command):
    """The seconds a Spark job reports for itself."""
    run = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(run.stdout.strip().splitlines()[-1])["seconds"]


def spark_job(arguments, work, inputs, output):
    return [sys.executable, os.path.join(ROOT, "Examples/spark/visage_spark.py"), *inputs,
            "--task", "landmark", "--output", os.path.join(work, output), "--visage", arguments.visage,
            "--weights", os.path.join(ROOT, "Weights"), "--master", "local[2]", "--partitions", "2",
            "--"] + OPTIONS


def write_dataset(path, paths):
    """The images as one Parquet file in Hugging Face's Image layout, 16 rows a row group."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    images = pa.array([{"bytes": open(p, "rb").read(), "path": p} for p in paths], kind)
    pq.write_table(pa.table({"id": pa.array(range(len(paths)), pa.int64()), "image": images}), path,
                   row_group_size=16)


def parquet(arguments, work, sources):
    paths = [s for _ in range(arguments.repeat) for s in sources]
    listing = os.path.join(work, "parquet-paths.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    for count in (len(paths), SMALL):
        write_dataset(os.path.join(work, f"images-{count}.parquet"), paths[:count])
    small_listing = os.path.join(work, "parquet-paths-small.txt")
    with open(small_listing, "w") as f:
        f.write("\n".join(paths[:SMALL]) + "\n")

    def native(listing, threads):
        return lambda: timed([arguments.visage, "landmark", "--paths-from", listing, "--output", "json",
                              "--threads", str(threads)] + OPTIONS)

    commands = {"1 thread": native(listing, 1), "2 threads": native(listing, 2),
                "2 threads small": native(small_listing, 2)}
    for count in (len(paths), SMALL):
        job = spark_job(arguments, work, ["--parquet", os.path.join(work, f"images-{count}.parquet")],
                        f"out-{count}")
        commands[f"spark {count}"] = lambda job=job: job_seconds(job)
    for command in commands.values():
        command()  # warm-up: the file cache, and the first JVM's class data
    best = {name: float("inf") for name in commands}
    for _ in range(arguments.rounds):
        for name, command in commands.items():
            best[name] = min(best[name], command())
    n = len(paths)
    print(f"Parquet: {n} images ({len(sources)} files x {arguments.repeat}), landmark {' '.join(OPTIONS)}, "
          f"best of {arguments.rounds} alternating rounds")
    for name in ("1 thread", "2 threads"):
        print(f"  one visage process, {name}: {best[name]:6.2f} s  {n / best[name]:6.1f} images/s")
    whole, small = best[f"spark {n}"], best[f"spark {SMALL}"]
    steady = (n - SMALL) / max(whole - small, 1e-9)
    native = n / best["2 threads"]
    # The same difference for visage itself, so that its own start (loading the models) is
    # left out of both sides alike.
    native_steady = (n - SMALL) / max(best["2 threads"] - best["2 threads small"], 1e-9)
    print(f"  Spark local[2], 2 partitions: {whole:6.2f} s after the session started  {n / whole:6.1f} images/s "
          f"({n / whole / native:.0%} of 2 threads)")
    print(f"  the same job over {SMALL} images: {small:.2f} s, so {steady:.1f} images/s once under way: "
          f"{steady / native:.0%} of one visage process with 2 threads; {steady / native_steady:.0%} of its "
          f"rate once under way ({native_steady:.1f} images/s, the same difference over {SMALL} images)")


def files(arguments, work, sources):
    images = os.path.join(work, "images")
    one = os.path.join(work, "one")
    os.makedirs(images)
    os.makedirs(one)
    paths = []
    for r in range(arguments.files_repeat):
        for i, source in enumerate(sources):
            target = os.path.join(images, f"{r:02}-{i:03}-{os.path.basename(source)}")
            shutil.copyfile(source, target)
            paths.append(target)
    shutil.copyfile(sources[0], os.path.join(one, os.path.basename(sources[0])))

    def best(command):
        return min(timed(command) for _ in range(arguments.rounds))

    print(f"Files: {len(paths)} images ({len(sources)} files x {arguments.files_repeat}), best of "
          f"{arguments.rounds}")
    seconds = best(spark_job(arguments, work, [images], "out-files-all"))
    overhead = best(spark_job(arguments, work, [one], "out-files-one"))
    print(f"  Spark local[2], files, 2 partitions: {seconds:6.2f} s  {len(paths) / seconds:6.1f} images/s "
          f"(the same job over one image: {overhead:.2f} s; "
          f"{(len(paths) - 1) / max(seconds - overhead, 1e-9):.1f} images/s after it)")
    reading = best([sys.executable, os.path.abspath(__file__), "--read-only", images])
    reading_one = best([sys.executable, os.path.abspath(__file__), "--read-only", one])
    print(f"  Spark local[2], reading the files only: {reading:6.2f} s (over one image: {reading_one:.2f} s; "
          f"{(len(paths) - 1) / max(reading - reading_one, 1e-9):.1f} images/s after it)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    parser.add_argument("--repeat", type=int, default=16)
    parser.add_argument("--files-repeat", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parquet-only", action="store_true", help="skip the file-reading Spark jobs")
    arguments = parser.parse_args()
    arguments.visage = os.path.abspath(arguments.visage)
    sources = sorted(glob.glob(os.path.join(ROOT, "Tests/Fixtures/detector/images/*"))
                     + glob.glob(os.path.join(ROOT, "Tests/Fixtures/landmarker/frames/*/*.jpg")))
    with tempfile.TemporaryDirectory() as work:
        parquet(arguments, work, sources)
        if not arguments.parquet_only:
            files(arguments, work, sources)


def read_only(folder):
    """The Spark job's input side alone: binaryFiles into two partitions of Python workers."""
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[2]").getOrCreate()
    records = spark.sparkContext.binaryFiles(folder, minPartitions=2)
    if records.getNumPartitions() < 2:
        records = records.repartition(2)
    records.map(lambda record: len(record[1])).sum()
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--read-only":
        read_only(sys.argv[2])
    else:
        main()
