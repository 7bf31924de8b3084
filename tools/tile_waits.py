#!/usr/bin/env python3
"""How long the 2-D kernel's look-backs take once what they wait for has been published, from
the per-ticket stamps of `build/lib/bench_tile_times --raw DIR` (lib/bench/bench_tile_times.cu).

    tile_waits.py SUMMARY_CSV RAW_DIR OUT_CSV

SUMMARY_CSV is the same run's `--csv` file: its rows name the cases and types and carry the
run's GPU, driver, CUDA version and date, which OUT_CSV repeats. Per case, in µs, over the tiles
(medians and percentiles by nearest rank, as bench_tile_times computes them):
  ticket_wait       a first-round block's start until its ticket, in three parts (thread 0's):
    prefetch_issue    start -> its L2 prefetch of the first tile issued
    flags_wait        -> past griddepcontrol.wait (the kernel that clears the flags)
    ticket_atomic     -> the ticket taken (the atomic on one word)
  first_tickets     the first round's last ticket - its first (when they were taken)
  drain             a later ticket -> the top of the tile loop: the end of the block's tile
                    before (it takes the next ticket first): a barrier, the release of done, the
                    next tile's L2 prefetch issue, the write-out and the barrier after it
  load p10/med/p90  loads start (the top of the tile loop) -> scanned
  partial_spread    per tile row: the last tile's partial - the first one's
  row_ready         row_done - the latest partial among the tile and the tiles of its first
                    window (up to 32 to its left): a row look-back waits for every tile of its
                    window to reach partial (a row of more than 33 tiles may need more windows)
  row_ready_first, row_ready_last  row_ready of the tiles of tile column 1 and of the last one
  row_step          row_done - (its own partial and the left neighbour's row_done, the later)
  up_ready          carries - its own row_done and the latest row_done of its first window above
                    (up to 32 tiles, inside its image); a look-back that needs a second window
                    counts it as wait
  release           done - carries: the column prefixes published, the next ticket's atomic, a
                    barrier and the release of done
"""
import csv
import sys
from pathlib import Path

WINDOW = 32     # tiles a look-back examines at once
STAMPS = ("ticket", "scanned", "partial", "row_done", "carries", "done", "written", "block_start", "prefetched",
          "flags_clear", "loads_start")
FIRST_ROUND_ONLY = ("block_start", "prefetched", "flags_clear")
COLUMNS = ["gpu", "driver", "cuda", "date", "case", "type", "tiles", "tiles_x", "ticket_wait_us", "prefetch_issue_us", "flags_wait_us",
           "ticket_atomic_us", "first_tickets_us", "drain_med_us", "load_p10_us",
           "load_med_us", "load_p90_us", "partial_spread_med_us", "row_ready_med_us", "row_ready_p90_us",
           "row_ready_first_med_us", "row_ready_last_med_us", "row_step_med_us", "up_ready_med_us", "up_ready_p90_us",
           "release_med_us"]


def quantile(values, f):
    """Nearest rank, as lib/bench/bench_tile_times.cu's percentile()."""
    v = sorted(values)
    return v[min(len(v) - 1, int(f * (len(v) - 1) + 0.5))]


def case_shape(case):
    """'1080x1920' -> (1, 1080, 1920); '64x1080x1920' -> (64, 1080, 1920)."""
    parts = [int(p) for p in case.split("x")]
    return (1, *parts) if len(parts) == 2 else tuple(parts)


def read_stamps(path):
    """Per ticket, the stamps in µs (None where the kernel wrote none: -1 in the file)."""
    rows = []
    for r in csv.DictReader(open(path)):
        rows.append({s: (int(r[s + "_ns"]) / 1000 if int(r[s + "_ns"]) >= 0 else None) for s in STAMPS})
    return rows


def place(ticket, tiles_x, images):
    """The kernel's place_of: tickets run over a tile row of every image at a time."""
    band, tx = divmod(ticket, tiles_x)
    return band % images, band // images, tx  # image, tile row, tile column


def waits(stamps, images, rows, tiles_x):
    """Each measure's values over the tiles (lists, named as in OUT_CSV), for tiles_x tiles per tile
    row (bench_tile_times's summary says; the 2-D kernel's tiles are 32 to 40 rows tall)."""
    tiles_y, left_over = divmod(len(stamps), tiles_x * images) if tiles_x > 0 else (0, 1)
    if left_over or not -(-rows // 40) <= tiles_y <= -(-rows // 32):
        raise ValueError(f"{len(stamps)} tickets of {tiles_x} per tile row are not whole tile rows of {images} "
                         f"image(s) of {rows} rows in tiles of 32 to 40 rows")
    missing = [k for k, s in enumerate(stamps) if any(s[name] is None for name in STAMPS if name not in FIRST_ROUND_ONLY)]
    if missing:
        raise ValueError(f"ticket {missing[0]} has no stamp for a step")
    partial_start = [k for k, s in enumerate(stamps) if len({s[name] is None for name in FIRST_ROUND_ONLY}) > 1]
    if partial_start:
        raise ValueError(f"ticket {partial_start[0]} has some of a first-round block's stamps, not all")
    tile = {place(k, tiles_x, images): s for k, s in enumerate(stamps)}
    m = {k: [] for k in ("ticket_wait", "prefetch_issue", "flags_wait", "ticket_atomic", "first_tickets", "drain", "load",
                         "partial_spread", "row_ready", "row_ready_first", "row_ready_last",
                         "row_step", "up_ready", "release")}
    for s in stamps:
        if s["block_start"] is not None:
            m["ticket_wait"].append(s["ticket"] - s["block_start"])
            m["prefetch_issue"].append(s["prefetched"] - s["block_start"])
            m["flags_wait"].append(s["flags_clear"] - s["prefetched"])
            m["ticket_atomic"].append(s["ticket"] - s["flags_clear"])
        else:
            m["drain"].append(s["loads_start"] - s["ticket"])
        m["load"].append(s["scanned"] - s["loads_start"])
        m["release"].append(s["done"] - s["carries"])
    first_round = [s["ticket"] for s in stamps if s["block_start"] is not None]
    m["first_tickets"] = [max(first_round) - min(first_round)] if first_round else []
    for b in range(images):
        for ty in range(tiles_y):
            row = [tile[b, ty, tx] for tx in range(tiles_x)]
            m["partial_spread"].append(max(t["partial"] for t in row) - min(t["partial"] for t in row))
            for tx in range(1, tiles_x):
                here = row[tx]
                ready = max(t["partial"] for t in row[max(0, tx - WINDOW):tx + 1])
                m["row_ready"].append(here["row_done"] - ready)
                if tx == 1:
                    m["row_ready_first"].append(here["row_done"] - ready)
                if tx == tiles_x - 1:
                    m["row_ready_last"].append(here["row_done"] - ready)
                m["row_step"].append(here["row_done"] - max(here["partial"], row[tx - 1]["row_done"]))
            if ty == 0:
                continue
            for tx in range(tiles_x):
                here = tile[b, ty, tx]
                window = [tile[b, a, tx]["row_done"] for a in range(max(0, ty - WINDOW), ty)]
                m["up_ready"].append(here["carries"] - max([here["row_done"]] + window))
    return m


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    summary, raw_dir, out_path = argv[1], Path(argv[2]), argv[3]
    out = []
    try:
        for r in csv.DictReader(open(summary)):
            images, rows, _ = case_shape(r["case"])
            stamps = read_stamps(raw_dir / f"tile_times_{r['case']}_{r['type']}.csv")
            if int(r["tiles"]) != len(stamps):
                raise ValueError(f"{r['case']} {r['type']}: the summary says {r['tiles']} tiles; the stamps have "
                                 f"{len(stamps)}")
            m = waits(stamps, images, rows, int(r["tiles_x"]))
            cell = lambda k, f=0.5: f"{quantile(m[k], f):.2f}" if m[k] else ""
            out.append([r["gpu"], r["driver"], r["cuda"], r["date"], r["case"], r["type"], r["tiles"], r["tiles_x"],
                        cell("ticket_wait"), cell("prefetch_issue"), cell("flags_wait"), cell("ticket_atomic"),
                        cell("first_tickets"), cell("drain"), cell("load", 0.1), cell("load"), cell("load", 0.9), cell("partial_spread"),
                        cell("row_ready"), cell("row_ready", 0.9), cell("row_ready_first"), cell("row_ready_last"),
                        cell("row_step"), cell("up_ready"), cell("up_ready", 0.9), cell("release")])
    except (OSError, ValueError, KeyError) as e:
        print(f"tile_waits: {e}", file=sys.stderr)
        return 1
    with open(out_path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        w.writerows(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
