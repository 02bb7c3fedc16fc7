#!/usr/bin/env python3
"""Runs Examples/spark/visage_spark.py for real and checks its rows: in local mode, then on a
standalone cluster of three JVMs on 127.0.0.1 (a master and two workers, one core each).

    .venv-spark/bin/python Examples/spark/test_visage_spark.py [--visage .build/release/visage]

1. Files, local[2]: the test images plus broken files (truncated PNG, text named .jpg, empty
   file) in two partitions. One Parquet row per input; each good row's `result` is exactly
   what `visage landmark --output json` prints for the same file (but `source`); each broken
   file an error row.
2. Parquet, local[2]: the same images as a Hugging Face-style dataset (an `image` struct of
   {bytes, path}, an `id`), plus a null image and a struct whose bytes are null. Rows keep
   `id`, take `source` from the struct's path, and the nulls are error rows.
3. The cluster (`org.apache.spark.deploy.master.Master` and two
   `org.apache.spark.deploy.worker.Worker`, each in its own JVM, every port on 127.0.0.1;
   the driver's too, and its web UI off). A Parquet dataset with a plain binary column, 40
   rows: first with a `visage` that kills itself the first time it runs, so a task fails
   and is run again; then with one worker killed (with its executor) while its tasks run.
   Both times every row is there exactly once. The cluster is stopped however the test ends.

Before any of that, run_partition (the job's streaming to one visage) is checked on its own
against a stand-in visage: nulls at the start, middle and end keep their places; a visage
that dies mid-stream, answers out of step, or a record source that fails makes it raise (never
hang, never drop rows); closed early, it leaves no process behind.

Exits non-zero on any failure, Spark failing to start included: nothing is skipped.
"""
import argparse
import glob
import threading
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

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


def run_job(inputs, output, visage, master, extra=(), environment=None):
    command = [sys.executable, os.path.join(HERE, "visage_spark.py"), *inputs, "--task", "landmark",
               "--output", output, "--visage", visage, "--weights", os.path.join(ROOT, "Weights"),
               "--master", master, *extra, "--"] + VISAGE_OPTIONS
    return subprocess.Popen(command, env=environment)


def finish(job, timeout=300):
    """Waits for a job; one that fails or runs past `timeout` seconds fails the test (and is
    killed, as is any job still running when a check fails: see main)."""
    try:
        status = job.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        job.kill()
        job.wait()
        raise AssertionError(f"the job ran past {timeout} s")
    assert status == 0, f"the job failed with status {status}"


def read_rows(output, key="source"):
    import pyarrow.parquet as pq
    rows = pq.read_table(output).to_pylist()
    keys = [row[key].removeprefix("file:") if isinstance(row[key], str) else row[key] for row in rows]
    assert len(set(keys)) == len(keys), f"a row came twice: {sorted(keys)}"
    return dict(zip(keys, rows))


def expected(paths, visage):
    """What visage prints for each file run directly, by path."""
    run = subprocess.run([visage, "landmark", "--output", "json"] + VISAGE_OPTIONS + paths,
                         capture_output=True, text=True)
    assert run.returncode == 1, f"the direct run should report the broken files: {run.returncode}"
    return {answer["source"]: answer for answer in map(json.loads, run.stdout.splitlines())}


def check_row(row, answer, where):
    """One row against visage's own answer for the same image (None: a null image)."""
    if answer is None or "error" in answer:
        assert row["error"] and row["result"] is None and row["faceCount"] is None, row
        return
    assert row["error"] is None, f"{where}: {row['error']}"
    result = json.loads(row["result"])
    result["source"] = answer["source"]
    assert result == answer, f"{where}: the job's result differs from visage's own"
    assert (row["width"], row["height"]) == (answer["width"], answer["height"])
    assert row["faceCount"] == len(answer["faceLandmarks"])


def summary(rows):
    faces = sum(row["faceCount"] or 0 for row in rows.values())
    errors = sum(1 for row in rows.values() if row["error"])
    print(f"  {len(rows)} rows, {faces} faces, {errors} error rows: as visage gives them", flush=True)


def check_files(rows, paths, direct):
    assert sorted(rows) == sorted(paths), f"one row per input: got {sorted(rows)}"
    for path in paths:
        check_row(rows[path], direct[path], path)
    summary(rows)


def write_parquet(path, records, layout, row_group_size=8):
    """records: (id, path, bytes or None); layout "struct" ({bytes, path}, as Hugging Face
    datasets write an Image column; None makes the struct null) or "binary"."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    ids = pa.array([r[0] for r in records], pa.int64())
    if layout == "struct":
        kind = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        image = pa.array([None if r[2] is None and r[1] is None else {"bytes": r[2], "path": r[1]}
                          for r in records], kind)
    else:
        image = pa.array([r[2] for r in records], pa.binary())
    table = pa.table({"id": ids, "image": image, "label": pa.array([f"row {r[0]}" for r in records])})
    pq.write_table(table, path, row_group_size=row_group_size)


def check_parquet(rows, by_id, direct):
    """rows keyed by id; by_id: id -> file path (None for a null image)."""
    assert sorted(rows) == sorted(by_id), f"one row per input row: got {sorted(rows)}"
    for key, path in by_id.items():
        check_row(rows[key], direct.get(path), f"id {key} ({path})")
    summary(rows)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StandaloneCluster:
    """A Spark standalone master and two workers, each a JVM of its own on 127.0.0.1, in
    process groups of their own so that stopping one stops its executors too."""

    def __init__(self, folder, workers=2):
        import pyspark
        self.folder = folder
        self.home = os.path.dirname(pyspark.__file__)
        self.port, self.ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.environment = dict(os.environ, SPARK_HOME=self.home, SPARK_LOCAL_IP="127.0.0.1",
                                SPARK_LOG_DIR=os.path.join(folder, "logs"),
                                # No REST submission server: nothing listens that the test does not use.
                                # A port taken meanwhile fails the start rather than move elsewhere.
                                SPARK_MASTER_OPTS="-Dspark.master.rest.enabled=false -Dspark.port.maxRetries=0",
                                SPARK_WORKER_OPTS="-Dspark.port.maxRetries=0")
        self.master = None
        self.workers = []
        self.count = workers

    def start(self):
        os.makedirs(self.folder, exist_ok=True)
        spark_class = os.path.join(self.home, "bin", "spark-class")
        self.master = self.launch("master", [spark_class, "org.apache.spark.deploy.master.Master", "--host",
                                             "127.0.0.1", "--port", str(self.port), "--webui-port", str(self.ui)])
        for k in range(self.count):
            work = os.path.join(self.folder, f"worker{k}")
            os.makedirs(work)
            self.workers.append((self.launch(f"worker{k}", [
                spark_class, "org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1",
                "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()), "--work-dir", work]), work))
        deadline = time.time() + 90
        while self.alive_workers() < self.count:
            assert time.time() < deadline, f"the cluster did not start: see {self.folder}/*.log"
            for process in [self.master] + [w for w, _ in self.workers]:
                assert process.poll() is None, f"a cluster JVM exited: see {self.folder}/*.log"
            time.sleep(0.25)
        return self

    def launch(self, name, command):
        log = open(os.path.join(self.folder, name + ".log"), "w")
        return subprocess.Popen(command, env=self.environment, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def alive_workers(self):
        # While the master starts, its UI may answer before its JSON page is ready (an empty
        # or HTML body): that is no worker yet, not a failure.
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.ui}/json/", timeout=2) as response:
                return json.load(response).get("aliveworkers", 0)
        except (OSError, ValueError):
            return 0

    def kill_worker(self, index):
        process, _ = self.workers[index]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self):
        for process in [w for w, _ in self.workers] + [self.master]:
            if process is not None and process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(timeout=10)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *_):
        self.stop()

    def job_settings(self):
        """What a driver on this machine needs to use the cluster; it waits for both workers'
        executors before scheduling, so that each worker gets tasks (the kill test needs the
        first one busy)."""
        return ["--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
                "--conf", "spark.ui.enabled=false", "--conf", "spark.executor.memory=512m",
                "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0",
                "--conf", "spark.scheduler.maxRegisteredResourcesWaitingTime=60s"]


def wrapper(folder, visage, body):
    """A script standing in for visage: `body` (shell), then visage itself."""
    path = os.path.join(folder, "visage")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\n{body}\nexec '{os.path.abspath(visage)}' \"$@\"\n")
    os.chmod(path, 0o755)
    return path


# A stand-in for `visage TASK --input-format jsonl -`: answers each line with its source, dies
# (SIGKILL) before answering line DIE_AT, answers for a made-up source at line ASTRAY_AT, and
# writes its pid to PID_FILE.
FAKE_VISAGE = r"""
import json, os, signal, sys
open(os.environ["PID_FILE"], "w").write(str(os.getpid()))
for k, line in enumerate(sys.stdin):
    if k == int(os.environ.get("DIE_AT", -1)):
        os.kill(os.getpid(), signal.SIGKILL)
    source = json.loads(line)["source"]
    if k == int(os.environ.get("ASTRAY_AT", -1)):
        source = "somewhere else"
    print(json.dumps({"source": source, "width": 1, "height": 1, "faceLandmarks": []}), flush=True)
"""


def check_run_partition(work):
    """run_partition against the stand-in, without Spark."""
    sys.path.insert(0, HERE)
    from visage_spark import run_partition
    fake = os.path.join(work, "fake_visage.py")
    with open(fake, "w") as f:
        f.write(FAKE_VISAGE)
    pid_file = os.path.join(work, "fake.pid")

    def run(records, **settings):
        environment = dict(os.environ, PID_FILE=pid_file, **{k: str(v) for k, v in settings.items()})
        return run_partition(iter(records), [sys.executable, fake], environment)

    def within(seconds, body):
        """body() in a thread that must end in `seconds`: a hang fails instead of blocking CI."""
        outcome = []
        thread = threading.Thread(target=lambda: outcome.append(capture(body)), daemon=True)
        thread.start()
        thread.join(seconds)
        assert not thread.is_alive(), "run_partition hung"
        return outcome[0]

    def capture(body):
        try:
            return body()
        except Exception as error:  # the checks below want to see it
            return error

    records = [(f"r{k}", None if k in (0, 3, 4, 9) else b"x", k) for k in range(10)]
    answers = within(30, lambda: list(run(records)))
    assert [extra for extra, _ in answers] == list(range(10)), answers
    assert all(("error" in a) == (k in (0, 3, 4, 9)) for k, (_, a) in enumerate(answers)), answers
    assert [a["source"] for _, a in answers] == [f"r{k}" for k in range(10)]

    died = within(30, lambda: list(run(records, DIE_AT=3)))
    assert isinstance(died, RuntimeError) and "status -9" in str(died), died
    astray = within(30, lambda: list(run(records, ASTRAY_AT=2)))
    assert isinstance(astray, RuntimeError) and "out of step" in str(astray), astray

    def failing():
        yield "a", b"x", 0
        yield "b", None, 1
        raise OSError("the batch could not be read")

    broken = within(30, lambda: list(run(failing())))
    assert isinstance(broken, RuntimeError) and "reading the partition's images failed" in str(broken), broken

    stream = run(records)
    next(stream)
    stream.close()
    pid = int(open(pid_file).read())
    try:
        os.kill(pid, 0)
        raise AssertionError("the visage of a stream closed early is still running")
    except ProcessLookupError:
        pass
    print("run_partition: order with nulls, a dying or astray visage, failing records, early close: ok",
          flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--visage", default=os.path.join(ROOT, ".build", "release", "visage"))
    visage = os.path.abspath(parser.parse_args().visage)
    assert os.access(visage, os.X_OK), f"no visage binary at {visage}: run swift build -c release"
    with tempfile.TemporaryDirectory() as work:
        inputs = os.path.join(work, "images")
        os.makedirs(inputs)
        paths = make_inputs(inputs)
        check_run_partition(work)
        direct = expected(paths, visage)
        contents = {p: open(p, "rb").read() for p in paths}

        started = time.time()
        print("files: job over", len(paths), "files, local[2]", flush=True)
        finish(run_job([inputs], os.path.join(work, "out.parquet"), visage, "local[2]", ["--partitions", "2"]))
        check_files(read_rows(os.path.join(work, "out.parquet")), paths, direct)

        print("parquet: Hugging Face image structs with nulls, local[2]", flush=True)
        records = [(k, p, contents[p]) for k, p in enumerate(paths)]
        records += [(len(records), None, None), (len(records) + 1, "missing.png", None)]
        dataset = os.path.join(work, "hf.parquet")
        write_parquet(dataset, records, "struct")
        finish(run_job(["--parquet", dataset, "--image-column", "image", "--keep-columns", "id,label"],
                       os.path.join(work, "hf-out.parquet"), visage, "local[2]", ["--partitions", "2"]))
        rows = read_rows(os.path.join(work, "hf-out.parquet"), key="id")
        check_parquet(rows, {r[0]: (r[1] if r[2] is not None else None) for r in records}, direct)
        assert all(row["label"] == f"row {k}" for k, row in rows.items())
        assert rows[0]["source"] == paths[0] and rows[len(paths)]["error"].startswith("no image")
        print(f"  local mode took {time.time() - started:.1f} s", flush=True)

        # Forty rows over four partitions: eight copies of the five good images.
        many = [(k, paths[k % 5], contents[paths[k % 5]]) for k in range(40)]
        dataset = os.path.join(work, "binary.parquet")
        write_parquet(dataset, many, "binary", row_group_size=5)
        by_id = {r[0]: r[1] for r in many}
        environment = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
        started = time.time()
        with StandaloneCluster(os.path.join(work, "cluster")) as cluster:
            print(f"cluster: master and 2 workers up in {time.time() - started:.1f} s", flush=True)
            settings = ["--parquet", dataset, "--image-column", "image", "--keep-columns", "id",
                        "--partitions", "4"] + cluster.job_settings()

            print("cluster: a visage that is killed the first time it runs", flush=True)
            tools = os.path.join(work, "crash")
            os.makedirs(tools)
            marker = os.path.join(tools, "crashed-once")
            crashing = wrapper(tools, visage, f"if [ ! -e '{marker}' ]; then touch '{marker}'; kill -9 $$; fi")
            finish(run_job(settings, os.path.join(work, "retried.parquet"), crashing, cluster.url,
                           environment=environment))
            assert os.path.exists(marker), "the wrapper never crashed"
            rows = read_rows(os.path.join(work, "retried.parquet"), key="id")
            check_parquet(rows, by_id, direct)
            assert all(row["source"].endswith(f"#{k}") for k, row in rows.items()), "FILE#ROW sources"

            print("cluster: a worker killed while its tasks run", flush=True)
            tools = os.path.join(work, "slow")
            os.makedirs(tools)
            started_log = os.path.join(tools, "started")
            # Each visage notes where it runs (its executor's folder under a worker's work
            # folder) and takes a second longer, so that tasks are in flight when the worker dies.
            slow = wrapper(tools, visage, f"echo \"$PWD\" >> '{started_log}'; sleep 1")
            job = run_job(settings, os.path.join(work, "survived.parquet"), slow, cluster.url,
                          environment=environment)
            try:
                victim = cluster.workers[0][1]
                deadline = time.time() + 120
                while not (os.path.exists(started_log) and victim in open(started_log).read()):
                    assert job.poll() is None, "the job ended before the first worker ran a task"
                    assert time.time() < deadline, "the first worker never ran a task"
                    time.sleep(0.1)
                cluster.kill_worker(0)
                print("  killed worker0 (and its executor) while a task ran there", flush=True)
                finish(job)
            finally:
                if job.poll() is None:
                    job.kill()
                    job.wait()
            check_parquet(read_rows(os.path.join(work, "survived.parquet"), key="id"), by_id, direct)
        print(f"  the cluster took {time.time() - started:.1f} s", flush=True)
        assert not glob.glob(os.path.join(work, "*.parquet", "_temporary"))
    print("spark job: ok")


if __name__ == "__main__":
    main()
