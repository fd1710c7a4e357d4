"""Runs a Ray cluster on 127.0.0.1 only: a head and worker nodes, until stdin closes or SIGTERM.

Each node is a Ray node of its own (its raylet, object store and workers; the head also runs the
GCS), all on the loopback address, started with `ray.cluster_utils.Cluster`, Ray's way of running
several nodes on one machine. `ray start` cannot: on Linux it replaces 127.0.0.1 with the
machine's outward address unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0, and then refuses to start a
second node. The environment must set RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (for this process and
every driver: it keeps 127.0.0.1 as given) and RAY_TMPDIR (where Ray writes anything).

Usage: ray_cluster.py --port <GCS port> --workers 2 --temp-dir <dir>
Prints `address=127.0.0.1:<port>` once every node is up; stops every node it started on exit.
"""

import argparse
import os
import signal
import sys
import threading

from ray.cluster_utils import Cluster

NODE = {
    "node_ip_address": "127.0.0.1",
    "num_cpus": 1,
    "object_store_memory": 200 * 1024 * 1024,
    "include_dashboard": False,
    # None: a free port each, so no node takes the default of another.
    "dashboard_agent_listen_port": None,
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--temp-dir", required=True)
    return parser.parse_args()


def main():
    args = parse_args()
    # Ray writes the address of the cluster it starts under $RAY_TMPDIR/ray.
    os.makedirs(os.path.join(os.environ["RAY_TMPDIR"], "ray"), exist_ok=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    cluster = Cluster(
        initialize_head=True,
        head_node_args={**NODE, "gcs_server_port": args.port, "temp_dir": args.temp_dir},
    )
    try:
        for _ in range(args.workers):
            cluster.add_node(**NODE)
        sys.stdout.write(f"address={cluster.address}\n")
        sys.stdout.flush()
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
        stop.wait()
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
