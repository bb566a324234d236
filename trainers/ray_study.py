"""The Ray driver of `sparring study --executor ray` (host/study/ray-executor.ts starts it).

Each (arm, seed) run of a study is a Ray actor on the cluster that runs one Node process,
`node bin/sparring.js --db SHARD run --resume R…`, writing its own lab shard; the coordinator
merges finished shards into the study's lab. The actor is *detached* and named after the job
(deterministic: lab, study, arm, seed), so a coordinator that is killed leaves it running and a
resumed coordinator finds it again with ray.get_actor; when the run ends the actor writes a marker
file beside the shard (exit code, last lines of the log), so a job that finished while nobody
watched is read from the marker and never run twice.

Protocol, one JSON object per line:
  stdin  {"submit": {"name", "argv", "cwd", "env", "log", "marker", "cpus", "gpus", "retries"}}
  stdout {"ready": {"ray": VERSION, "cpus": N, "gpus": N}}
         {"started": NAME, "attempt": K, "reattached": BOOL}
         {"done": NAME, "code": INT, "tail": STR, "attempts": K, "from": "marker"|"actor"}
         {"error": STR}
The driver exits when stdin closes (its detached actors keep running).

Only Ray's supported core API is used (ray.init(address=…), actors, ray.get_actor, ray.kill):
the dashboard and with it the Jobs REST API need packages this project's index lacks.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

import ray

NAMESPACE = "sparring"
_out = threading.Lock()


def say(obj):
    with _out:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def tail_of(path, lines=12):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 8192))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


@ray.remote(max_concurrency=4)
class SparringRun:
    """One Node process of a study's run, started when the actor starts; wait() returns its end."""

    def __init__(self, argv, cwd, env, log, marker):
        self.marker = marker
        self.log = log
        self.started = time.time()
        full_env = dict(os.environ)
        full_env.update(env)
        self.logf = open(log, "ab")
        self.proc = subprocess.Popen(argv, cwd=cwd, env=full_env, stdout=self.logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.result = None
        self.lock = threading.Lock()

    def wait(self):
        code = self.proc.wait()
        with self.lock:
            if self.result is None:
                self.logf.close()
                self.result = {"code": code, "tail": tail_of(self.log), "seconds": time.time() - self.started}
                tmp = self.marker + ".tmp"
                with open(tmp, "w") as f:
                    json.dump(self.result, f)
                os.replace(tmp, self.marker)
        return self.result


def read_marker(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def release(actor, name, wait_s=60.0):
    """Kill an attempt's actor and wait until its name is free.

    ray.kill returns before the actor is gone; a retry that looked the name up at once would
    reattach to the dying actor, whose wait() then fails and the retry is reported as code -1.
    """
    try:
        ray.kill(actor)
    except Exception:
        return
    deadline = time.time() + wait_s
    while time.time() < deadline:
        try:
            ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:
            return
        time.sleep(0.1)


def run_job(job):
    name = job["name"]
    retries = int(job.get("retries", 2))
    marker = job["marker"]
    attempt = 0
    while True:
        done = read_marker(marker)
        if done is not None and (done["code"] == 0 or attempt > 0):
            if attempt == 0:
                try:  # an actor that finished while no coordinator watched: its resources go back
                    ray.kill(ray.get_actor(name, namespace=NAMESPACE))
                except Exception:
                    pass
            say({"done": name, "code": done["code"], "tail": done.get("tail", ""), "attempts": attempt, "from": "marker"})
            return
        if done is not None:
            # A failed attempt from before the coordinator restarted: retried below like any other.
            os.remove(marker)
        attempt += 1
        reattached = False
        try:
            actor = ray.get_actor(name, namespace=NAMESPACE)
            reattached = True
        except ValueError:
            opts = {"name": name, "namespace": NAMESPACE, "lifetime": "detached", "num_cpus": job.get("cpus", 1)}
            if job.get("gpus"):
                opts["num_gpus"] = job["gpus"]
            actor = SparringRun.options(**opts).remote(job["argv"], job["cwd"], job.get("env", {}), job["log"], marker)
        say({"started": name, "attempt": attempt, "reattached": reattached})
        try:
            result = ray.get(actor.wait.remote())
        except Exception as err:  # the actor or its node died: this attempt failed
            result = {"code": -1, "tail": f"{type(err).__name__}: {err}\n{tail_of(job['log'])}"}
            with open(marker, "w") as f:
                json.dump(result, f)
        release(actor, name)
        if result["code"] == 0 or attempt > retries:
            say({"done": name, "code": result["code"], "tail": result.get("tail", ""), "attempts": attempt, "from": "actor"})
            return
        os.remove(marker)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--address", required=True, help="the Ray cluster's GCS address, e.g. 10.0.0.5:6379")
    a = ap.parse_args()
    ray.init(address=a.address, namespace=NAMESPACE, log_to_driver=False, logging_level="ERROR")
    res = ray.cluster_resources()
    say({"ready": {"ray": ray.__version__, "cpus": res.get("CPU", 0), "gpus": res.get("GPU", 0)}})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
            job = msg["submit"]
        except (ValueError, KeyError) as err:
            say({"error": f"bad request {line[:200]!r}: {err}"})
            continue

        def guarded(job=job):
            try:
                run_job(job)
            except Exception as err:
                say({"done": job["name"], "code": -1, "tail": f"driver: {type(err).__name__}: {err}", "attempts": 0, "from": "driver"})

        threading.Thread(target=guarded, daemon=True).start()


if __name__ == "__main__":
    main()
