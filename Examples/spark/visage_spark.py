#!/usr/bin/env python3
"""Run `visage detect`, `landmark` or `analyze` over many images on Apache Spark.

Spark reads the image files (`binaryFiles`: local paths, HDFS, S3 with the right Hadoop jars),
so executors need no shared disk. Each partition starts one `visage` process and streams its
images to it as JSON Lines on standard input (`visage TASK --input-format jsonl -`); `visage`
answers one JSON line per image, in order. Every input gives exactly one output row:

    source      string   the file's URI as Spark names it
    task        string   detect, landmark or analyze
    width       int      image width in pixels (null on error)
    height      int      image height in pixels (null on error)
    faceCount   int      faces found (null on error)
    result      string   visage's JSON line for the image, exactly as `visage TASK --output json`
                         prints it (the schema is in docs/cli.md); null on error
    error       string   why the image gave no result (unreadable or not an image); null otherwise

An unreadable image is an error row, not a failure. If `visage` itself dies (a crash, a kill,
or fewer answers than images), the partition's task fails and Spark retries it
(`spark.task.maxFailures`).

Usage:
    spark-submit Examples/spark/visage_spark.py INPUT... --task landmark --output out.parquet \\
        --visage .build/release/visage --weights Weights -- --num-faces 4 --blendshapes

INPUT is a file, a directory, a glob or a URI (several may be given), or use --paths-from FILE
for a text file of paths/URIs, one per line. Everything after `--` goes to `visage` unchanged.
--visage and --weights ship the binary and the Weights/ folder to the executors with the job
(SparkContext.addFile); without them `visage` must be on the executors' PATH and find its
weights itself (VISAGE_WEIGHTS). The binary must run on the executors: build it there, or
build a self-contained one with `swift build -c release --static-swift-stdlib` (it still needs
libopenblas, libpng and libjpeg installed on the executors).
"""
import argparse
import base64
import json
import os
import stat
import subprocess
import sys
import threading

TASKS = ("detect", "landmark", "analyze")
RESULT_KEYS = {"detect": "detections", "landmark": "faceLandmarks", "analyze": "faces"}
WEIGHT_FILES = ("face_landmarker.task", "face_detection_full_range.tflite")


def parse_arguments(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` is for visage; split it off before argparse sees it.
    visage_arguments = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s INPUT... --output OUT [options] [-- VISAGE OPTIONS]")
    parser.add_argument("inputs", nargs="*", help="files, directories, globs or URIs")
    parser.add_argument("--paths-from", help="a text file (any Spark-readable URI) of paths, one per line")
    parser.add_argument("--task", choices=TASKS, default="landmark")
    parser.add_argument("--output", required=True, help="where to write the rows (a folder, as Spark writes)")
    parser.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    parser.add_argument("--visage", help="a visage binary to ship to the executors (default: visage on their PATH)")
    parser.add_argument("--weights", help="a Weights/ folder to ship to the executors")
    parser.add_argument("--partitions", type=int, default=0,
                        help="minimum partitions (default: the cluster's default parallelism)")
    parser.add_argument("--master", help="Spark master when run without spark-submit, e.g. local[2]")
    arguments = parser.parse_args(argv)
    arguments.visage_arguments = visage_arguments
    if not arguments.inputs and not arguments.paths_from:
        parser.error("give INPUT paths or --paths-from")
    return arguments


def run_partition(records, command, environment):
    """Streams one partition's (uri, bytes) records through one visage process and yields its
    answer for each, in order. Raises when visage dies or answers out of step, so that Spark
    fails the task and retries it."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=environment)
    sources, stderr = [], []

    def feed():
        # A thread of its own, so that a full stdout pipe never blocks the writes.
        try:
            for uri, data in records:
                sources.append(uri)
                line = json.dumps({"source": uri, "data": base64.b64encode(data).decode("ascii")})
                process.stdin.write(line.encode() + b"\n")
            process.stdin.close()
        except BrokenPipeError:
            pass  # visage died; its status and the missing answers say so below

    writer = threading.Thread(target=feed)
    # stderr is read too, so that it cannot fill up and block visage; kept for the message.
    stderr_reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()))
    writer.start()
    stderr_reader.start()
    answered = 0
    for line in process.stdout:
        answer = json.loads(line)
        if answered >= len(sources) or answer.get("source") != sources[answered]:
            raise RuntimeError(f"visage answered for {answer.get('source')!r} out of step")
        answered += 1
        yield answer
    writer.join()
    stderr_reader.join()
    status = process.wait()
    if status not in (0, 1) or answered != len(sources):
        log = b"".join(stderr).decode(errors="replace")[-2000:]
        raise RuntimeError(f"visage exited with status {status} after {answered} of {len(sources)} answers: {log}")


def to_row(answer, task):
    """One output row for visage's answer about one image."""
    if "error" in answer:
        return (answer["source"], task, None, None, None, None, answer["error"])
    faces = answer.get(RESULT_KEYS[task], [])
    return (answer["source"], task, answer.get("width"), answer.get("height"), len(faces),
            json.dumps(answer, separators=(",", ":")), None)


def main(argv=None):
    arguments = parse_arguments(argv)
    from pyspark import SparkFiles
    from pyspark.sql import SparkSession
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    builder = SparkSession.builder.appName(f"visage {arguments.task}")
    if arguments.master:
        builder = builder.master(arguments.master)
    spark = builder.getOrCreate()
    context = spark.sparkContext

    shipped_binary = None
    if arguments.visage:
        context.addFile(os.path.abspath(arguments.visage))
        shipped_binary = os.path.basename(arguments.visage)
    if arguments.weights:
        for name in WEIGHT_FILES:
            context.addFile(os.path.join(os.path.abspath(arguments.weights), name))

    if arguments.paths_from:
        paths = [p.strip() for p in context.textFile(arguments.paths_from).collect() if p.strip()]
    else:
        paths = arguments.inputs
    wanted = arguments.partitions or context.defaultParallelism
    files = context.binaryFiles(",".join(paths), minPartitions=wanted)
    # binaryFiles packs small files into few splits (the minimum is only a hint): a few
    # thousand photos can arrive as one partition, which leaves every executor but one idle.
    if files.getNumPartitions() < wanted:
        files = files.repartition(wanted)

    task, visage_arguments, ships_weights = arguments.task, arguments.visage_arguments, bool(arguments.weights)

    def partition(records):
        binary = "visage"
        if shipped_binary:
            binary = SparkFiles.get(shipped_binary)
            os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
        environment = dict(os.environ)
        if ships_weights:
            environment["VISAGE_WEIGHTS"] = SparkFiles.getRootDirectory()
        command = [binary, task, "--input-format", "jsonl", "-", "--output", "json"] + visage_arguments
        for answer in run_partition(records, command, environment):
            yield to_row(answer, task)

    schema = StructType([
        StructField("source", StringType(), False),
        StructField("task", StringType(), False),
        StructField("width", IntegerType(), True),
        StructField("height", IntegerType(), True),
        StructField("faceCount", IntegerType(), True),
        StructField("result", StringType(), True),
        StructField("error", StringType(), True),
    ])
    rows = spark.createDataFrame(files.mapPartitions(partition), schema)
    writer = rows.write.mode("overwrite")
    if arguments.format == "parquet":
        writer.parquet(arguments.output)
    else:
        writer.json(arguments.output)
    spark.stop()


if __name__ == "__main__":
    main()
