#!/usr/bin/env python3
"""Run `visage detect`, `landmark` or `analyze` over many images on Apache Spark.

The images come from files (local paths, HDFS, S3 with the right Hadoop jars: Spark's
`binaryFile` source reads them, so executors need no shared disk) or from a Parquet dataset
with an image column (`--parquet`). Each partition starts one `visage` process and streams its
images to it as JSON Lines on standard input (`visage TASK --input-format jsonl -`), in Arrow
batches, with no file per image; `visage` answers one JSON line per image, in order. Every
input gives exactly one output row:

    (key columns)        with --parquet: the --keep-columns, as the dataset has them
    source      string   files: the file's URI as Spark names it; Parquet: the image struct's
                         `path`, else FILE#ROW (the Parquet file and the row's index in it)
    task        string   detect, landmark or analyze
    width       int      image width in pixels (null on error)
    height      int      image height in pixels (null on error)
    faceCount   int      faces found (null on error)
    result      string   visage's JSON line for the image, exactly as `visage TASK --output json`
                         prints it (the schema is in docs/cli.md), but `source`; null on error
    error       string   why the image gave no result (null, unreadable or not an image);
                         null otherwise

A null, unreadable or broken image is an error row, not a failure. If `visage` itself dies (a
crash, a kill, or fewer answers than images), the partition's task fails and Spark runs it
again (`spark.task.maxFailures`); an executor or worker that dies has its tasks run elsewhere.
The output is written through Spark's commit protocol, so a task run twice gives its rows once.

Usage:
    spark-submit Examples/spark/visage_spark.py INPUT... --task landmark --output out.parquet \\
        --visage .build/release/visage --weights Weights -- --num-faces 4 --blendshapes
    spark-submit Examples/spark/visage_spark.py --parquet data/ --image-column image \\
        --keep-columns id,label --output faces.parquet --visage ... --weights Weights

INPUT is a file, a directory, a glob or a URI (several may be given), or use --paths-from FILE
for a text file of paths/URIs, one per line. With --parquet, the image column is binary, or a
struct with a binary `bytes` field (Hugging Face `datasets`' Image layout, {bytes, path}).
Everything after `--` goes to `visage` unchanged. --visage and --weights ship the binary and
the Weights/ folder to the executors with the job (SparkContext.addFile); without them
`visage` must be on the executors' PATH and find its weights itself (VISAGE_WEIGHTS). The
binary must run on the executors (docs/spark.md). At the end the driver prints one JSON line:
{"rows": N, "errors": E, "seconds": S}, S being the job's time after the session started.
"""
import argparse
import base64
import collections
import json
import os
import stat
import subprocess
import sys
import threading
import time

TASKS = ("detect", "landmark", "analyze")
RESULT_KEYS = {"detect": "detections", "landmark": "faceLandmarks", "analyze": "faces"}
WEIGHT_FILES = ("face_landmarker.task", "face_detection_full_range.tflite")
# Columns the job adds to every row; kept columns may not take these names.
RESULT_COLUMNS = ("source", "task", "width", "height", "faceCount", "result", "error")
# Rows per Arrow batch handed back to Spark (small: a result is a few kilobytes of JSON).
BATCH_ROWS = 256
# Images per Arrow batch handed to a Python worker, unless Spark is told otherwise.
ARROW_BATCH_ROWS = 64


def parse_arguments(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after `--` is for visage; split it off before argparse sees it.
    visage_arguments = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s INPUT... --output OUT [options] [-- VISAGE OPTIONS]")
    parser.add_argument("inputs", nargs="*", help="files, directories, globs or URIs")
    parser.add_argument("--paths-from", help="a text file (any Spark-readable URI) of paths, one per line")
    parser.add_argument("--parquet", help="a Parquet dataset (file, folder or glob) with an image column")
    parser.add_argument("--image-column", default="image",
                        help="with --parquet: the column of image bytes, binary or a struct with `bytes`")
    parser.add_argument("--keep-columns", default="",
                        help="with --parquet: comma-separated columns copied to each output row")
    parser.add_argument("--task", choices=TASKS, default="landmark")
    parser.add_argument("--output", required=True, help="where to write the rows (a folder, as Spark writes)")
    parser.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    parser.add_argument("--visage", help="a visage binary to ship to the executors (default: visage on their PATH)")
    parser.add_argument("--weights", help="a Weights/ folder to ship to the executors")
    parser.add_argument("--partitions", type=int, default=0,
                        help="minimum partitions (default: the cluster's default parallelism)")
    parser.add_argument("--master", help="Spark master when run without spark-submit, e.g. local[2]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="a Spark setting when run without spark-submit; repeatable")
    arguments = parser.parse_args(argv)
    for setting in arguments.conf:
        if "=" not in setting:
            parser.error(f"--conf takes KEY=VALUE, got {setting!r}")
    arguments.visage_arguments = visage_arguments
    arguments.keep_columns = [c.strip() for c in arguments.keep_columns.split(",") if c.strip()]
    if arguments.parquet and (arguments.inputs or arguments.paths_from):
        parser.error("give either --parquet or file INPUTs, not both")
    if not arguments.inputs and not arguments.paths_from and not arguments.parquet:
        parser.error("give INPUT paths, --paths-from or --parquet")
    if arguments.keep_columns and not arguments.parquet:
        parser.error("--keep-columns needs --parquet")
    clash = sorted(set(arguments.keep_columns) & set(RESULT_COLUMNS))
    if clash:
        parser.error(f"--keep-columns may not name the job's own columns: {', '.join(clash)}")
    return arguments


def run_partition(records, command, environment):
    """Streams one partition's records through one visage process.

    `records` yields (source, image bytes or None, extra); the generator yields (extra,
    answer) for each in order, where answer is visage's JSON object, or an error object made
    here for a missing image. Raises when visage dies or answers out of step, or when reading
    the records fails, so that Spark fails the task and runs it again rather than lose rows.
    However it ends (even closed early), the visage process is gone afterwards and the records
    are read no further. (A visage that stalls without dying holds the task; Spark's
    speculative execution, if enabled, runs it elsewhere.)"""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=environment)
    # What the writer sent (or skipped), in order: (source, extra, sent). The reader takes
    # from the front; deque's append and popleft are safe across the two threads.
    pending = collections.deque()
    stderr, failure, stop = [], [], threading.Event()

    def feed():
        # A thread of its own, so that a full stdout pipe never blocks the writes.
        try:
            for source, data, extra in records:
                if stop.is_set():  # the partition ended early: read no further
                    break
                pending.append((source, extra, data is not None))
                if data is not None:
                    line = json.dumps({"source": source, "data": base64.b64encode(data).decode("ascii")})
                    process.stdin.write(line.encode() + b"\n")
                    # At once: visage should not wait for the next batch to see this image.
                    process.stdin.flush()
        except BrokenPipeError:
            pass  # visage died; its status and the missing answers say so below
        except BaseException as error:  # reading the records failed: the task must fail
            failure.append(error)
        finally:
            try:
                process.stdin.close()  # visage answers what it has, then ends
            except OSError:
                pass

    def unsent():
        """Error answers for the images at the front that were never sent (nulls)."""
        while pending and not pending[0][2]:
            source, extra, _ = pending.popleft()
            yield extra, {"source": source, "error": "no image: the value is null"}

    writer = threading.Thread(target=feed, daemon=True)
    # stderr is read too, so that it cannot fill up and block visage; kept for the message.
    stderr_reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)
    writer.start()
    stderr_reader.start()
    try:
        answered = 0
        for line in process.stdout:
            yield from unsent()
            answer = json.loads(line)
            if not pending or answer.get("source") != pending[0][0]:
                raise RuntimeError(f"visage answered for {answer.get('source')!r} out of step")
            _, extra, _ = pending.popleft()
            answered += 1
            yield extra, answer
        writer.join()
        if failure:
            raise RuntimeError(f"reading the partition's images failed after {answered + len(pending)} of them") \
                from failure[0]
        stderr_reader.join()
        yield from unsent()
        sent = answered + len(pending)
        status = process.wait()
        if status not in (0, 1) or pending:
            log = b"".join(stderr).decode(errors="replace")[-2000:]
            raise RuntimeError(f"visage exited with status {status} after {answered} of {sent} answers: {log}")
    finally:
        stop.set()
        if process.poll() is None:
            process.kill()
        process.wait()
        writer.join(timeout=10)
        for pipe in (process.stdin, process.stdout, process.stderr):
            try:
                pipe.close()
            except OSError:
                pass


def result_fields(answer, task):
    """The job's own columns for visage's answer about one image."""
    if "error" in answer:
        return {"source": answer["source"], "task": task, "width": None, "height": None, "faceCount": None,
                "result": None, "error": answer["error"]}
    faces = answer.get(RESULT_KEYS[task], [])
    return {"source": answer["source"], "task": task, "width": answer.get("width"),
            "height": answer.get("height"), "faceCount": len(faces),
            "result": json.dumps(answer, separators=(",", ":")), "error": None}


def image_columns(frame, column):
    """Expressions for an image column's bytes and its own path, if it has one."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StructType
    if column not in frame.columns:
        raise SystemExit(f"visage_spark: no column {column!r}; the dataset has {', '.join(frame.columns)}")
    kind = frame.schema[column].dataType
    if isinstance(kind, BinaryType):
        return F.col(f"`{column}`"), None
    if isinstance(kind, StructType) and "bytes" in kind.fieldNames() \
            and isinstance(kind["bytes"].dataType, BinaryType):
        path = F.col(f"`{column}`.path") if "path" in kind.fieldNames() else None
        return F.col(f"`{column}`.bytes"), path
    raise SystemExit(f"visage_spark: column {column!r} is {kind.simpleString()}; it must be binary or a "
                     "struct with a binary `bytes` field")


def main(argv=None):
    arguments = parse_arguments(argv)
    from pyspark import SparkFiles
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    # The Python workers need pyarrow and pandas (mapInArrow). In local mode they run here, so
    # this interpreter, which has them, is the default; a cluster's executors need
    # PYSPARK_PYTHON (or spark.pyspark.python) naming a Python that has them (docs/spark.md).
    if (arguments.master or "").startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = SparkSession.builder.appName(f"visage {arguments.task}")
    if arguments.master:
        builder = builder.master(arguments.master)
    for setting in arguments.conf:
        key, value = setting.split("=", 1)
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    context = spark.sparkContext
    # Arrow hands a Python worker 10,000 rows at a time by default: 40 GB of 4 MB photos.
    # 64 keeps a worker's batch to a few hundred megabytes; a setting given to Spark wins.
    if not context.getConf().contains("spark.sql.execution.arrow.maxRecordsPerBatch"):
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", str(ARROW_BATCH_ROWS))
    started = time.perf_counter()

    shipped_binary = None
    if arguments.visage:
        context.addFile(os.path.abspath(arguments.visage))
        shipped_binary = os.path.basename(arguments.visage)
    if arguments.weights:
        for name in WEIGHT_FILES:
            context.addFile(os.path.join(os.path.abspath(arguments.weights), name))

    wanted = arguments.partitions or context.defaultParallelism
    if arguments.parquet:
        frame = spark.read.parquet(arguments.parquet)
        if frame.rdd.getNumPartitions() < wanted:
            # Split the files at row groups into about `wanted` parts rather than shuffle every
            # image across the cluster (the repartition below is the fallback when row groups
            # are too large to split that finely).
            hadoop, jvm = context._jsc.hadoopConfiguration(), context._jvm
            sizes = [jvm.org.apache.hadoop.fs.Path(f) for f in frame.inputFiles()]
            total = sum(p.getFileSystem(hadoop).getFileStatus(p).getLen() for p in sizes)
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1 << 16, total // wanted)))
            frame = spark.read.parquet(arguments.parquet)
        missing = [c for c in arguments.keep_columns if c not in frame.columns]
        if missing:
            raise SystemExit(f"visage_spark: no column {', '.join(missing)}; the dataset has "
                             f"{', '.join(frame.columns)}")
        image, own_path = image_columns(frame, arguments.image_column)
        position = F.concat(F.col("_metadata.file_path"), F.lit("#"), F.col("_metadata.row_index").cast("string"))
        source = F.coalesce(own_path, position) if own_path is not None else position
        kept = [frame.schema[c] for c in arguments.keep_columns]
        frame = frame.select(*[F.col(f"`{c}`") for c in arguments.keep_columns],
                             source.alias("__source"), image.alias("__image"))
        if frame.rdd.getNumPartitions() < wanted:
            frame = frame.repartition(wanted)
    else:
        if arguments.paths_from:
            paths = [p.strip() for p in context.textFile(arguments.paths_from).collect() if p.strip()]
        else:
            paths = arguments.inputs
        # binaryFiles, not the binaryFile DataFrame source, which leaves empty files out: every
        # file must give its row.
        files = context.binaryFiles(",".join(paths), minPartitions=wanted)
        # binaryFiles packs small files into few splits (the minimum is only a hint): a few
        # thousand photos can arrive as one partition, which leaves every executor but one idle.
        if files.getNumPartitions() < wanted:
            files = files.repartition(wanted)
        kept = []

    task, visage_arguments, ships_weights = arguments.task, arguments.visage_arguments, bool(arguments.weights)
    kept_names = [field.name for field in kept]
    schema = StructType(kept + [
        StructField("source", StringType(), False),
        StructField("task", StringType(), False),
        StructField("width", IntegerType(), True),
        StructField("height", IntegerType(), True),
        StructField("faceCount", IntegerType(), True),
        StructField("result", StringType(), True),
        StructField("error", StringType(), True),
    ])

    def command_for():
        """The visage command line on an executor, with the shipped binary if there is one."""
        binary = "visage"
        if shipped_binary:
            binary = SparkFiles.get(shipped_binary)
            os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
        return [binary, task, "--input-format", "jsonl", "-", "--output", "json"] + visage_arguments

    def environment():
        """The executor's environment, pointing visage at the shipped weights if any."""
        variables = dict(os.environ)
        if ships_weights:
            variables["VISAGE_WEIGHTS"] = SparkFiles.getRootDirectory()
        return variables

    def partition(batches):
        """The Parquet path: Arrow batches in and out (mapInArrow)."""
        import pyarrow as pa
        from pyspark.sql.pandas.types import to_arrow_schema
        arrow_schema = to_arrow_schema(schema)

        def records():
            for batch in batches:
                columns = batch.to_pydict()
                for k in range(batch.num_rows):
                    extra = tuple(columns[name][k] for name in kept_names)
                    yield columns["__source"][k], columns["__image"][k], extra

        rows = []
        for extra, answer in run_partition(records(), command_for(), environment()):
            row = dict(zip(kept_names, extra))
            row.update(result_fields(answer, task))
            rows.append(row)
            if len(rows) == BATCH_ROWS:
                yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema)
                rows = []
        if rows:
            yield pa.RecordBatch.from_pylist(rows, schema=arrow_schema)

    def file_partition(records):
        """The binaryFiles path: (uri, bytes) records, rows out as tuples."""
        records = ((uri, data, ()) for uri, data in records)
        for _, answer in run_partition(records, command_for(), environment()):
            fields = result_fields(answer, task)
            yield tuple(fields[name] for name in RESULT_COLUMNS)

    if arguments.parquet:
        rows = frame.mapInArrow(partition, schema)
    else:
        rows = spark.createDataFrame(files.mapPartitions(file_partition), schema)
    writer = rows.write.mode("overwrite")
    if arguments.format == "parquet":
        writer.parquet(arguments.output)
        written = spark.read.parquet(arguments.output)
    else:
        writer.json(arguments.output)
        written = spark.read.schema(schema).json(arguments.output)
    seconds = time.perf_counter() - started
    counts = written.agg(F.count(F.lit(1)).alias("rows"), F.count("error").alias("errors")).first()
    print(json.dumps({"rows": counts["rows"], "errors": counts["errors"], "seconds": round(seconds, 3)}))
    spark.stop()


if __name__ == "__main__":
    main()
