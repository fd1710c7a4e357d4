"""Reads a market lake with Ray Data on a running Ray cluster and prints what it computed as JSON.

Only the files the lake's manifest lists are read: a day's with Hive partitioning (the day comes
from the `date=YYYY-MM-DD` folder, typed DATE here) and a partition filter keeping the days from
`--since` on, so the files of earlier days are never opened; a month's (`month=YYYY-MM`, the models
sorted by item group) when its entry's last day (`through`) is not before `--since`, the day taken
from the model's time column and its rows of earlier days left out. Computed, over the days read:

- per day and item group, from `stg_listing_events`: the cheapest new listing (integer cents) and
  how many were listed;
- per day and item group, from `fct_minask_hourly`: the day's lowest service minAsk (integer
  cents), its highest listed count at an hour's close, and its minutes;
- the float histogram of `--item` (new listings, `--buckets` equal buckets of [0, 1));
- and the cluster's alive nodes, the files read, and the nodes that read them.

Usage: ray_read.py --address 127.0.0.1:6379 --lake <dir> --since YYYY-MM-DD --item <name>
       [--nodes 3] [--buckets 20]
The last line of stdout is the JSON; Ray's own messages go to stderr.
"""

import argparse
import datetime
import itertools
import json
import logging
import os
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import ray
from ray.data.aggregate import Count, Max, Min, Sum
from ray.data.context import ShuffleStrategy
from ray.data.datasource.partitioning import Partitioning, PathPartitionFilter
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

GROUP = ["market_hash_name", "wear", "doppler_phase"]
# Ray Data groups by keys it sorts or hashes; a missing wear or phase is grouped as "" and given
# back as null.
NO_VALUE = ""


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    parser.add_argument("--lake", required=True)
    parser.add_argument("--since", required=True)
    parser.add_argument("--item", required=True)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--buckets", type=int, default=20)
    return parser.parse_args()


def wait_for_nodes(count, timeout_s=60):
    """The alive nodes once `count` are, as (address, id) pairs; fails after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = [n for n in ray.nodes() if n["Alive"]]
        if len(alive) >= count or time.monotonic() > deadline:
            return [{"address": n["NodeManagerAddress"], "id": n["NodeID"]} for n in alive]
        time.sleep(0.5)


def read_relation(lake, manifest, relation, since, time, placements):
    """The relation's listed files, the days before `since` left out: a day file's by its path alone,
    a month file's by its entry's days, then by its rows' day (`time`'s). Each file is read by a
    task of its own on the next of `placements`, its rows tagged with the node that read them."""
    base = os.path.join(lake, relation)
    files = manifest["relations"][relation]
    day_type = {"date": str}
    partitioning = Partitioning("hive", base_dir=base, field_types=day_type)
    # Ray's partition filter picks the day files by their folder before any is opened.
    keep = PathPartitionFilter.of(
        lambda partition: partition["date"] >= since, base_dir=base, field_types=day_type
    )
    days = keep([os.path.join(lake, f["path"]) for f in files if "through" not in f])
    months = [os.path.join(lake, f["path"]) for f in files if "through" in f and f["through"] >= since]
    reads = [
        read_file(path, next(placements), partitioning).map_batches(tagged_with_node, batch_format="pyarrow")
        for path in days
    ]
    # Engines refuse date= and month= folders in one Hive read: a month file is read apart.
    reads += [
        read_file(path, next(placements), None)
        .map_batches(dated_since(time, since), batch_format="pyarrow")
        .map_batches(tagged_with_node, batch_format="pyarrow")
        for path in months
    ]
    return reads[0] if len(reads) == 1 else reads[0].union(*reads[1:])


def read_file(path, placement, partitioning):
    """One parquet file read by one task scheduled by `placement`, its path in column `path`."""
    return ray.data.read_parquet(
        path,
        include_paths=True,
        ray_remote_args={"scheduling_strategy": placement},
        partitioning=partitioning,
    )


def tagged_with_node(table):
    """The rows with the node that read them; run fused with the read, on its node."""
    node = ray.get_runtime_context().get_node_id()
    return table.append_column("node", pa.array([node] * table.num_rows, pa.string()))


def dated_since(time, since):
    """A batch of a month file with its day (`time`'s) as `date`, the days before `since` left out."""
    first = pa.scalar(datetime.date.fromisoformat(since), pa.date32())

    def batch(table):
        # The day is the time column's, whatever a reader's partitioning added under that name.
        if "date" in table.column_names:
            table = table.drop_columns(["date"])
        table = table.append_column("date", pc.cast(table[time], pa.date32()))
        return table.filter(pc.greater_equal(table["date"], first))

    return batch


def cents(column):
    """A DECIMAL(18,2) money column as exact integer cents."""
    return pc.cast(pc.multiply(column, pa.scalar(100, pa.int64())), pa.int64())


def with_group_keys(table):
    """The day typed DATE and the group's missing values as NO_VALUE."""
    table = table.set_column(
        table.schema.get_field_index("date"), "date", pc.cast(table["date"], pa.date32())
    )
    for key in GROUP:
        table = table.set_column(
            table.schema.get_field_index(key), key, pc.fill_null(table[key], NO_VALUE)
        )
    return table


def prepare_events(table):
    table = with_group_keys(table.filter(pc.equal(table["kind"], "new")))
    table = table.append_column("price_cents", cents(table["price_usd"]))
    return table.select(["date", *GROUP, "price_cents", "float_value", "node", "path"])


def prepare_minask(table):
    table = with_group_keys(table)
    table = table.append_column("min_ask_cents", cents(table["service_min_ask_low_usd"]))
    return table.select(
        ["date", "app_id", *GROUP, "min_ask_cents", "service_listed_count_close", "minutes", "node", "path"]
    )


def rows_of(dataset, rename):
    """The dataset's rows as JSON-ready dicts: dates ISO, NO_VALUE back to null, columns renamed."""
    out = []
    for row in dataset.iter_rows():
        item = {}
        for key, value in row.items():
            if key == "date":
                value = value.isoformat()
            elif key in GROUP and value == NO_VALUE:
                value = None
            elif hasattr(value, "item"):
                value = value.item()
            item[rename.get(key, key)] = value
        out.append(item)
    return sorted(out, key=lambda r: json.dumps(r, sort_keys=True))


def main():
    args = parse_args()
    ray.init(address=args.address, logging_level="WARNING", log_to_driver=False)
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # Grouping by sorting runs as tasks. The default hash shuffle starts aggregator actors that can
    # hold every CPU of a small cluster while the tasks feeding them wait for one.
    context.shuffle_strategy = ShuffleStrategy.SORT_SHUFFLE_PULL_BASED
    nodes = wait_for_nodes(args.nodes)
    # Each file read on the next node in turn: SPREAD alone is a preference, and on a busy machine
    # Ray may run every read on one node.
    placements = itertools.cycle([NodeAffinitySchedulingStrategy(n["id"], soft=False) for n in nodes])
    with open(os.path.join(args.lake, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)

    events = read_relation(args.lake, manifest, "stg_listing_events", args.since, "received_at", placements)
    events = events.map_batches(prepare_events, batch_format="pyarrow").materialize()
    listings = events.groupby(["date", *GROUP]).aggregate(Min("price_cents"), Count())
    item = events.filter(
        lambda row: row["market_hash_name"] == args.item and row["float_value"] is not None
    )
    buckets = item.map_batches(
        lambda t: pa.table(
            {"bucket": pc.cast(pc.floor(pc.multiply(t["float_value"], float(args.buckets))), pa.int64())}
        ),
        batch_format="pyarrow",
    )
    histogram = buckets.groupby("bucket").count()

    minask = read_relation(args.lake, manifest, "fct_minask_hourly", args.since, "hour", placements)
    minask = minask.map_batches(prepare_minask, batch_format="pyarrow").materialize()
    minask_days = minask.groupby(["date", "app_id", *GROUP]).aggregate(
        Min("min_ask_cents"), Max("service_listed_count_close"), Sum("minutes")
    )

    # Which node read which file: one row per pair.
    reads = (
        events.select_columns(["node", "path"])
        .union(minask.select_columns(["node", "path"]))
        .groupby(["node", "path"])
        .count()
        .take_all()
    )
    result = {
        "nodes": nodes,
        "files_read": sorted({os.path.relpath(r["path"], args.lake) for r in reads}),
        "worked_on": sorted({r["node"] for r in reads}),
        "listings": rows_of(
            listings, {"min(price_cents)": "min_ask_cents", "count()": "listings"}
        ),
        "minask": rows_of(
            minask_days,
            {
                "min(min_ask_cents)": "min_ask_cents",
                "max(service_listed_count_close)": "max_listed",
                "sum(minutes)": "minutes",
            },
        ),
        "histogram": rows_of(histogram, {"count()": "listings"}),
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
