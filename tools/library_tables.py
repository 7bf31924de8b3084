#!/usr/bin/env python3
"""Regenerate the measured tables of the docs from committed CSV (make library-tables).

    library_tables.py [--docs DIR] [--check]

    docs/data/library_h100.csv  the C++ library (build/peers variant satlib) beside NPP and CUB,
                                measured through the harness (one row per variant, type, shape;
                                its `source` column says which run): docs/library.md's library
                                table and docs/lab9.md's Measured table
    docs/data/library_h200.csv  the same on an H200 (the peers' rows of its `make bench` run):
                                docs/library.md's H200 library table. Both are written from a
                                `make bench` CSV (and the .json beside it) by
                                `library_tables.py --peers-of plots/bench_<gpu>_<date>.csv OUT`
    docs/data/python_h100.csv, python_h200.csv  tools/bench_python.py (satlib.integral against
                                torch, kornia, CuPy, NPP), one run per GPU: docs/library.md's Python tables
    docs/data/batch_h100.csv    lib/bench/bench_batch.cpp --csv (a batch in one launch): docs/library.md
                                and docs/data/batch_h200.csv (the same program on an H200):
                                the batch CSVs of the two `make bench` runs; batch_h200.csv is also
                                tests/results_batch.py's data
    docs/data/ncu_h100.csv      Nsight Compute on the library's kernels (DRAM, occupancy, stalls):
                                docs/tiles.md's Where the time goes
    docs/data/ncu_h200.csv      the same for four f32 rows on an H200: docs/tiles.md
    docs/data/ncu_short_tiles_h200.csv  tools/ncu_summary.py of Nsight Compute reports of one
                                1920x1080 image in the short tiles (f32, i32, u8 -> i32, f64): docs/tiles.md
    docs/data/ncu_targets_h200.csv  tools/ncu_summary.py of Nsight Compute reports of the launches
                                that miss issue 22's targets (f32, u8 -> i32): docs/tiles.md
    docs/data/short_tiles_images_ab_h200.csv, short_tiles_targets_ab_h200.csv  bench_ab --set images
                                and --set targets --csv as written (f32's short tiles against
                                e8c01a8): docs/tiles.md
    docs/data/short_tiles_int_images_ab_h200.csv, short_tiles_int_targets_ab_h200.csv  bench_ab
                                --set images and --set targets --csv as written (i32's and
                                u8 -> i32's short tiles against bbdf075): docs/tiles.md
    docs/data/short_tiles_pairs_images_ab_h200.csv (and _run2), short_tiles_pairs_targets_ab_h200.csv,
                                short_tiles_pairs_squares_ab_h200.csv  bench_ab --set images,
                                --set targets and --set squares --csv as written (the short tiles
                                of u8 -> f32 and the f64 accumulator against 18742d3): docs/tiles.md
    docs/data/even_rounds_targets_ab_h200.csv (and _run2), even_rounds_squares_ab_h200.csv,
                                rounds_ab_h200.csv (and _run2), rounds_targets_ab_h200.csv  bench_ab
                                --set targets, squares and rounds --csv as written (two rounds of
                                tiles evened out or not): docs/tiles.md
    docs/data/ncu_two_rounds_h200.csv  tools/ncu_summary.py of an Nsight Compute report of u8 -> i32
                                4096^2 on half its tiles' blocks: docs/tiles.md
    docs/data/short_tiles_128_images_ab_h200.csv (and _run2), rounds_u8_ab_h200.csv (and _run2)
                                bench_ab --set images and --set rounds --csv as written (the short
                                tiles to 128 tile rows; u8 inputs never evened out; against
                                9267540): docs/tiles.md
    docs/data/small_tiles_128_images_ab_h200.csv (and _run2)  bench_ab --set images --csv as written
                                (the small tiles to 128 tile rows, against 8afe23f): docs/tiles.md
    docs/data/prefetch_ahead_targets_ab_h200.csv, prefetch_ahead_squares_ab_h200.csv,
                                evict_first_targets_ab_h200.csv, evict_first_squares_ab_h200.csv,
                                evict_first_ahead_targets_ab_h200.csv  bench_ab --set targets and
                                --set squares --csv as written (an L2 prefetch a round ahead, tile
                                loads marked evict-first in L2, and both; against 9267540; not
                                kept): docs/tiles.md
    docs/data/tall_small_tiles_images_ab_h200.csv (and _run2)  bench_ab --set images --csv as
                                written (the tall small tiles of f32 and i32, against 143cb4c):
                                docs/tiles.md
    docs/data/f64_tiles_40_images_ab_h200.csv (and _run2), f64_tiles_40_squares_ab_h200.csv  bench_ab
                                --set images and --set squares --csv as written (the f64
                                accumulator's 256-thread tiles of 40 rows, against ea94972; not
                                kept): docs/tiles.md
    docs/data/small_tiles_two_rounds_rounds_ab_h200.csv, small_tiles_two_rounds_targets_ab_h200.csv,
                                small_tiles_two_rounds_images_ab_h200.csv  bench_ab --set rounds,
                                targets and images --csv as written (the small tiles for calls of
                                one to two rounds of 256-thread tiles, against ea94972; not kept):
                                docs/tiles.md
    docs/data/one_round_small_images_ab_h200.csv (and _run2), one_round_small_odd_ab_h200.csv (and
                                _run2), one_round_small_f64_images_ab_h200.csv (and _run2)  bench_ab --set images and --set odd --csv as written (one
                                round of small tiles where the 256-thread ones are a round or more,
                                against 094abac): docs/tiles.md
    docs/data/small_tiles_38_images_ab_h200.csv (and _run2)  bench_ab --set images --csv as written
                                (f32 and i32 small tiles of 38 rows in place of 34, which one
                                2160x3840 image takes too; against 143cb4c; not kept): docs/tiles.md
    docs/data/rows17_images_ab_h200.csv, rows12_images_ab_h200.csv  bench_ab --set images --csv as
                                written (f32 small tiles of 17 and of 12 rows against 070cc11's
                                34; not kept): docs/tiles.md
    docs/data/phases_h200.csv   tools/ncu_phases.py --csv (Nsight Compute's warp-state samples of
                                the 2-D kernel summed per phase of its tile loop): docs/tiles.md;
                                phases_batch_order_h200.csv the same for batches, the kernels of
                                83daaf6 and 2da0c77 (their case names say which);
                                stalls_h200.csv the stall reasons of two runs (16384² f32 of
                                83daaf6, 64 × 1080×1920 f32 of 2da0c77), summed over the
                                kernel's instructions (quoted in the prose); polls_h200.csv
                                the executions of the look-backs' spin loops in the 16384² f32
                                run (quoted in the prose)
    docs/data/odd_phases_h200.csv  tools/ncu_phases.py --stall long_sb --executed --csv: the same
                                samples per phase with their long-scoreboard part and the warp
                                instructions, the lanes path (16385²) against the vector path
                                (16384²), u8 → i32 and f32: docs/tiles.md
    docs/data/u8rows_odd_ab_h200.csv  bench_ab --set odd --csv as written (u8 shared-memory rows a
                                group at a time, the shipped kernel of 9b2efec, against the kernel
                                of efa2eb7): docs/tiles.md; its second run _run2 and
                                u8rows_targets_ab_h200.csv (--set targets; quoted in the prose)
    docs/data/u8groups_odd_ab_h200.csv  bench_ab --set odd --csv as written (u8 shared-memory rows
                                in groups of 7 rows, against the kernel of efa2eb7; not kept):
                                docs/tiles.md; its second run _run2 and u8groups14_odd_ab_h200.csv
                                (base = groups of 14, this = groups of 7; quoted in the prose)
    docs/data/shifted_rows_odd_ab_h200.csv  bench_ab --set odd --csv as written (f32 and i32
                                register rows from aligned loads shifted by shuffles, against the
                                kernel of efa2eb7; not kept): docs/tiles.md; its second run _run2
    docs/data/stage_odd_ab_h200.csv  bench_ab --set odd --csv as written (the lanes path's write-out
                                through a stage of 4 rows per warp, against the kernel of 9b2efec;
                                not kept): docs/tiles.md; its second run _run2,
                                stage_targets_ab_h200.csv (--set targets) and
                                stage_phases_h200.csv (tools/ncu_phases.py --csv of the variant
                                at 16385², u8 → i32 and f32), all quoted in the prose
    docs/data/held_odd_ab_h200.csv  bench_ab --set odd --csv as written (integer register rows held
                                whole, the kernel of 52b10bf, against the kernel of 73521d0):
                                docs/tiles.md; its second run _run2, held_targets_ab_h200.csv
                                (--set targets) and held_phases_h200.csv (tools/ncu_phases.py
                                --csv, 16385² i32 and f32)
    docs/data/row_step_targets_ab_h200.csv  bench_ab --set targets --csv as written (the shared-memory
                                rows' output pointer stepped by the pitch, the shipped kernel,
                                against the kernel of bd618c1): docs/tiles.md; its second run
                                _run2 and row_step_odd_ab_h200.csv (--set odd, with _run2), quoted
    docs/data/row_step_u8_instructions_h200.csv  Nsight Compute's smsp__inst_executed.sum of the
                                u8 -> i32 kernels of both builds in one bench_ab --set targets run
                                (median of 3 launches each): docs/tiles.md
    docs/data/piece_loop_targets_ab_h200.csv  bench_ab --set targets --csv as written (the
                                shared-memory rows of a thread whose piece lies wholly inside in
                                a loop of their own, against the kernel of 0a6f7d5; not kept):
                                docs/tiles.md; its second run _run2 (against b1393df's kernel,
                                the same source) and piece_loop_odd_ab_h200.csv (--set odd, with
                                _run2), quoted
    docs/data/taller_tiles_ab_h200.csv  bench_ab --set targets --csv as written (tiles of 16 + 24
                                rows for f32 and i32 and 4 + 32 for u8 -> i32 where rows start on
                                whole pieces, the kernel of 510fc04, against 2f45cb9's):
                                docs/tiles.md; taller_tiles_squares_ab_h200.csv (--set squares)
                                and taller_tiles_odd_ab_h200.csv (--set odd) the same;
                                taller_lanes_ab_h200.csv (with _run2), taller_lanes_squares_ab_h200.csv
                                and taller_lanes_odd_ab_h200.csv (the taller tiles in every access
                                mode), rows24_ab_h200.csv and rows24_squares_ab_h200.csv (f32, i32
                                and f64 in 16 + 24) and rows26_ab_h200.csv (16 + 26), quoted
    docs/data/aggregates_images_ab_h200.csv  bench_ab --set images --csv as written (one round
                                of small tiles adds up the aggregates of the tiles left and
                                above, the kernel of df61d03, against 9e923eb's look-backs):
                                docs/tiles.md; aggregates_targets_ab_h200.csv (--set targets)
                                the same; tile_times_aggregates_h200.csv, bench_tile_times --csv
                                of df61d03; aggregates_tidy_images_ab_h200.csv (--set images,
                                left-edge tiles at partial only and loops unrolled by 4, against
                                df61d03; not kept)
    docs/data/aligned_rows_odd_ab_h200.csv  bench_ab --set odd --csv as written (f32 and i32
                                register rows from aligned loads, every load before any shuffle,
                                against the kernel of 73521d0; not kept): docs/tiles.md; its
                                second run _run2 and aligned_rows_targets_ab_h200.csv (quoted)
    docs/data/u8groups14_on_73521d0_odd_ab_h200.csv  bench_ab --set odd --csv as written (u8
                                shared-memory rows in groups of 14, against the kernel of 73521d0,
                                7 rows a group; not kept): quoted in docs/tiles.md; its second
                                run _run2
    docs/data/timeline_h100.csv lib/bench/bench_timeline.cu --csv (when one call's tiles are written):
                                docs/tiles.md
    docs/data/tile_times_h200.csv  lib/bench/bench_tile_times.cu --csv (each tile's steps in one
                                call, median and 90th percentile over the tiles): docs/tiles.md;
                                tile_waits_h200.csv, tools/tile_waits.py on the same run's --raw
                                stamps (the look-backs' time after their inputs were published);
                                tile_times_31afd94_h200.csv, the same for the kernel of 31afd94
                                (`load` from the ticket; quoted in the prose);
                                tile_times_unroll_h200.csv, bench_tile_times --csv of the
                                latency_unroll build (quoted in the prose)
    docs/data/tile_times_prefetch_base_h200.csv, tile_waits_prefetch_base_h200.csv  the same two
                                files for the kernel of e9b045e built with the stamps of ef25d8d
                                (quoted in the prose)
    docs/data/prefetch_spread_ab_h200.csv  bench_ab --set targets --csv as written (a tile's L2
                                prefetch spread over the warps, against the kernel of e9b045e):
                                docs/tiles.md; its second run _run2 (quoted in the prose)
    docs/data/row_loads_ab_h200.csv  bench_ab --set targets --csv as written (row sums loaded 8 at
                                a time, against the kernel of 025fbc5; not kept): docs/tiles.md;
                                tile_waits_row_loads_h200.csv, tile_waits.py of e9b045e on that
                                build's stamps (quoted in the prose)
    docs/data/first_round_tickets_ab_h200.csv  bench_ab --set targets --csv as written (the first
                                round's tickets from the block indices, against the kernel of
                                ef25d8d; not kept): docs/tiles.md; its second run _run2 (quoted)
    docs/data/prefetch_budget_ab_h200.csv  bench_ab --set targets --csv of the shipped 24 MiB
                                in-loop prefetch against builds of LAB9_PREFETCH_MB 12, 16 and 32,
                                seeds 47 and 48, each row led by the base's budget and the seed:
                                docs/tiles.md
    docs/data/likely_next_ab_h200.csv  bench_ab --set targets --csv as written (warps 2 and up
                                prefetch the likely next tile into L2, against the kernel of
                                772e189; not kept): docs/tiles.md; its second run _run2 and
                                tile_times_likely_next_h200.csv, that build's bench_tile_times (quoted)
    docs/data/latency_unroll_ab_h200.csv  bench_ab --set targets --csv as written (two changes for
                                the latency of a block alone on its SM, against the kernel of
                                43b3a2f; not kept): docs/tiles.md
    docs/data/wide_tiles_h100.csv  the library's tile shapes of 128 and of 256 threads, an A/B: docs/lab9.md
    docs/data/lab9_batch_h100.csv  ./lab9-ref and build/peers --variant satlib with --batch: docs/lab9.md
    docs/data/lab8x_h200.csv    ./lab8x-ref's two handout runs (harness CSV, the run's metadata in
                                front): docs/lab8x.md's Results tables
    docs/data/tiles_h100.csv    the library's tile shapes at image sizes (a sweep): docs/lab9.md
    docs/data/tiles_h200.csv    the tile shapes at 16384² behind the tuned ones (the numbers the
                                handout quoted; the sweep's own CSV was not kept): docs/lab9.md
    docs/data/small_tiles_ab_h200.csv  bench_ab --csv as written (lib/bench/bench_ab.cpp; base = f32
                                small images in 64-thread tiles, this = the shipped tiles): docs/lab9.md
    docs/data/tiles160_ab_h100.csv  bench_ab --csv as written (base = the shipped tile shapes, this =
                                f32 and u8 -> i32 tiles of 160 threads; not kept): docs/lab9.md; its
                                second run tiles160_ab_h100_run2.csv (quoted in the prose)
    docs/data/lab8_*_h200.csv   lab 8's design experiments (A/B runs of kernels not kept), one CSV a
                                table, cells as written: docs/lab8.md
    docs/data/thin_h100.csv     sat::thin on thin shapes (time, copy, scratch, check): docs/thin.md
    docs/data/lab10_gpus_h100.csv, lab10_gpus_h200.csv  `./lab10-ref --gpus G --csv` as written, on a
                                host with 4 H100s (G = 1, 2, 4) and one with 2 H200s (G = 1, 2):
                                docs/lab10.md
    docs/data/lab10_links.csv   λ and β of those runs' NCCL exchange, from their `calibration:`
                                lines (the harness CSV does not keep them)
    docs/data/lines_h100.csv    one line by CUB against the chunks, an A/B: docs/thin.md
    docs/data/line_pointer_ab_h200.csv  bench_ab --set lines --csv as written (CUB given the
                                input pointer against a widening transform iterator): docs/thin.md
    docs/data/line_words_ab_h200.csv  bench_ab --set lines --csv as written (u8 -> i32 lines in
                                words of four against 0356b57's element by element): docs/thin.md;
                                its second run _run2 and line_words_struct_ab_h200.csv (+ _run2),
                                the same A/B of the 8-byte struct variant (quoted)
    docs/data/line_words_items_ab_h200.csv  bench_ab --set lines --csv as written (12 items per
                                thread against CUB's 24 on the u8 -> i32 words): docs/thin.md; its
                                _run2, and line_words_items8/16_ab_h200.csv (+ _run2), 12 against
                                8 and 16 (quoted); line_word_groups_ab_h200.csv and
                                line_word_groups_w2_ab_h200.csv (+ _run2), groups of up to 4 words
                                against single words and groups of up to 2 (quoted)
    docs/data/line_words_ncu_h200.csv  Nsight Compute of CUB's scan kernel on lines: docs/thin.md
    docs/data/thin_loads_ab_h200.csv, thin_chunk96_ab_h200.csv, thin_loads_in_flight_ab_h200.csv
                                bench_ab --set thin --csv as written (16-byte input loads against
                                the chunks before them; 96 KB chunks and 16 loads in flight
                                against the shipped chunks): docs/thin.md
    docs/data/thin_ncu_h200.csv Nsight Compute of the thin kernel: docs/thin.md
    docs/data/thin_m2_ab_h100.csv, thin_m2_u8_ab_h100.csv  bench_ab --set thin --csv as written
                                (M = 2 at K = 33 for f32, f64 and i32, and for u8 too, against
                                M = 3): docs/thin.md; thin_m2_ab_h200.csv, the same A/B on an H200
    docs/data/thin_pad_ab_h200.csv  bench_ab --set thin --csv as written (tall segments of M = 2
                                padded to 2K + 1 against the shipped unpadded ones): docs/thin.md
    docs/data/wide_tiles_ab_h200.csv (and _run2)  bench_ab --set wide --csv as written (wide thin
                                images of 24 to 64 rows in the 2-D tiles, against 4065fea): docs/thin.md
    docs/data/wide_f64_ab_h200.csv  bench_ab --set wide --csv as written (the f64 accumulator's wide
                                thin images of 33 or 34 rows in tiles of 16 + 18 rows, against
                                a9fd1a2): docs/thin.md; wide_f64_shape_ab_h200.csv, tiles of
                                12 + 22 rows against those of 16 + 18
    docs/data/thin_small_blocks_same_type_ab_h200.csv, thin_small_blocks_pitches_ab_h200.csv,
                                thin_small_blocks_thin_ab_h200.csv  bench_ab --set same-type,
                                pitches and thin --csv as written (one wide f32 or i32 image of
                                few rows in blocks of 128 threads, against d4bd298): docs/thin.md
    docs/data/thin_variants_few_rows_ab_h200.csv, thin_variants_thin_ab_h200.csv  bench_ab --set
                                few-rows and --set thin, one run per variant (the base) against
                                391944e's thin kernel, with a variant column: docs/thin.md
    docs/data/wide_lanes_ab_h200.csv, wide_lanes_pitches_ab_h200.csv  bench_ab --set wide and --set
                                pitches --csv as written (f32, i32 and u8 -> i32 wide thin images
                                of 33 or 34 rows at odd pitches in tiles of 34 rows, against
                                e62dc54): docs/thin.md
    docs/data/wide_all_ab_h200.csv, wide_all2_ab_h200.csv  bench_ab --set wide --csv as written, of
                                two other sets of shapes (every wide thin image of 17 rows or more
                                in the 2-D tiles, against 4065fea; not kept as such): docs/thin.md
    docs/data/thin_cursor_ab_h200.csv, thin_cursor_ab_h100.csv, thin_groups_ab_h200.csv  bench_ab
                                --set thin --csv as written (a division per group against FlatCursor,
                                on each GPU; segment walks in
                                groups of four components against one at a time); thin_fold_ab_h200.csv
                                (the carry folded into the last lines against the kernel of 3b98f6e):
                                docs/thin.md
    docs/data/thin_cursor_ab_h200_run2.csv, thin_fold_ab_h200_run2.csv  the second runs of those two
                                A/Bs, as written (quoted in docs/thin.md's prose, no table)
    docs/data/thin_warp_offsets_ab_h100.csv  bench_ab --set thin --csv as written (the warp offsets
                                added on the way out against the kernel of 15c4b93; not kept):
                                docs/thin.md; its second run thin_warp_offsets_ab_h100_run2.csv
                                (quoted in the prose)
    docs/data/thin_ncu_cursor_h200.csv  Nsight Compute of the thin kernel with FlatCursor and M at run
                                time: docs/thin.md
    docs/data/thin_lines_ab_h200.csv, thin_lines_ab_h100.csv  bench_ab --set thin --csv as written
                                (steps 1 and 4 with M = 1, 2, 3 at compile time against M at run
                                time): docs/thin.md; their second runs thin_lines_ab_h200_run2.csv
                                and thin_lines_ab_h100_run2.csv (quoted in the prose)
    docs/data/thin_ncu_lines_h200.csv  Nsight Compute of the thin kernel with M at run time and at
                                compile time: docs/thin.md
    docs/data/rows_lanes_ncu_h200.csv  Nsight Compute of the packed rows' lanes at 256 x 8 (dd78b1b's
                                library; cells from the raw sections): docs/thin.md
    docs/data/rows_lanes_policy_ab_h200_<T>x<I>.csv  bench_ab --set rows --csv as written, one per
                                policy of the packed rows' lanes (base = T threads of I items, this =
                                256 x 8): docs/thin.md's ROWS LANES POLICY table, from all of them
    docs/data/rows_short_tiles_ab_h200.csv, columns_short_tiles_ab_h200.csv, columns_ab_h200.csv,
                                columns_thin_ab_h200.csv  bench_ab --csv as written (the lanes' short
                                tiles for rows and for columns; the packed columns against the chunks):
                                docs/thin.md
    docs/data/rows_element_lanes_ab_h200.csv, rows_element_lanes_routed_ab_h200.csv,
                                rows_element_lanes_12items_ab_h200.csv  bench_ab --set rows --csv
                                as written (f32, f64 and i32 images of 2 or 3 rows in element lanes
                                at every width, as 81846a5 routes them, and at 12 items per thread):
                                docs/thin.md (the last quoted in the prose)
    docs/data/thin_sass_split_h200.csv  Nsight Compute's source counters of the thin kernel with M
                                at run time, its SASS split by hand into the kernel's parts:
                                docs/thin.md
    docs/data/thin_groups8_ab_h200.csv, thin_groups8_vs4_ab_h200.csv  bench_ab --set thin --csv as
                                written (segment walks in groups of eight components against one at
                                a time, and against groups of four; not kept; quoted in the prose)
    docs/data/thin_walk_ab_h200.csv, thin_walk_ab_h200_run2.csv  bench_ab --set thin --csv as written
                                (step 2 of tall chunks by walking lanes against warp scans for every
                                chunk): docs/thin.md; the second run quoted in the prose
    docs/data/thin_walk_ab_h100.csv, thin_walk_ab_h100_run2.csv  the same A/B on an H100:
                                docs/thin.md; the second run quoted in the prose
    docs/data/thin_rotate_widths_ab_h100.csv, thin_rotate_widths_vs_all_h100.csv,
    thin_rotate_ab_h100.csv     bench_ab --set widths and --set thin --csv as written (u8 -> i32
                                pieces stored rotated from K = 8 up against plain stores, and
                                against rotation at every K): docs/thin.md
    docs/data/thin_rotate_all_ab_h100.csv, thin_rotate_all_ab_h100_run2.csv  bench_ab --set thin
                                --csv as written (rotation at every K against plain stores; not
                                kept as such; quoted in the prose of docs/thin.md)
    docs/data/thin_pitches_ab_h200.csv, thin_pitches_loads_ab_h200.csv,
    thin_pitches_writes_ab_h200.csv  bench_ab --set pitches --csv as written (wide rows that are not
                                whole 16-byte groups: shifted 16-byte loads and writes against the
                                kernel of b992ac3, against element loads, and against element
                                writes): docs/thin.md; thin_pitches_aa_h200.csv (two builds of the
                                same code), thin_pitches_thin_ab_h200.csv (--set thin against
                                b992ac3) and thin_aa_h200.csv (--set thin, the same code twice),
                                as written (quoted in the prose)
    docs/data/thin_pitches_shuffle_ab_h200.csv, thin_pitches_shuffle_all_ab_h200.csv  bench_ab
                                --set pitches --csv as written (one load per shifted group and a
                                shuffle against two loads: as shipped, and with u8 shuffled too):
                                docs/thin.md; thin_pitches_shuffle_thin_ab_h200.csv (--set thin,
                                the second build against 5b194a2) as written (quoted in the prose)
    docs/data/thin_segment_walk_ab_h200.csv  bench_ab --set widths --csv as written (padded tall
                                segments found with one division per group, pitched tall chunks
                                stepping cursors, against a division per element): docs/thin.md;
                                thin_segment_walk_thin_ab_h200.csv (--set thin, the same builds)
                                as written (quoted in the prose)
    docs/data/thin_four_blocks_ab_h200.csv  bench_ab --set tall --csv as written (chunks for 4
                                blocks per SM in single tall images of f32, i32 and f64 against
                                64 KB chunks): docs/thin.md; thin_four_blocks_thin_ab_h200.csv
                                (--set thin, the same builds), thin_four_blocks_capped_ab_h200.csv
                                (--set tall, 4d43e86 against 937c09f) and thin_blocks_*_ab_h200.csv
                                (--set thin, variants of chunk size, threads and launch bounds
                                against the kernel of 413c492) as written (quoted in the prose)
    docs/data/thin_straight_ab_h200.csv, thin_straight_same_ab_h200.csv,
    thin_straight_all_same_ab_h200.csv  bench_ab --set thin and --set same-type --csv as written
                                (f32 and i32 chunks of K >= 24 loaded by cp.async, 33e2e4a, against
                                the library of 07c3475; and cp.async for f32, i32 and f64 at every K
                                against it): docs/thin.md; thin_straight_ab_h200_run2.csv,
                                thin_straight_ab_h200_run3.csv (--set thin, 54ef568 against 07c3475),
                                thin_straight_tall_ab_h200.csv, thin_straight_all_ab_h200.csv and
                                thin_straight_all_tall_ab_h200.csv (--set thin and --set tall, the
                                same builds) as written (quoted in the prose)
    docs/data/thin_straight_ncu_k3_h200.csv, thin_straight_ncu_k33_h200.csv  Nsight Compute metrics
                                (medians of 3 launches per shape, written from ncu --csv) of the
                                loads through registers and by cp.async: docs/thin.md
    docs/data/thin_padded_group_ab_h200.csv  bench_ab --set widths and --set tall --csv, the two runs'
                                rows in one file (a padded group's places by one comparison per
                                element against the library of 20e84cf, whose kernel is that of
                                c29343c): docs/thin.md
    docs/data/thin_padded_rotation_ab_h200.csv  bench_ab --set widths and --set tall --csv, the two
                                runs' rows in one file (padded tall groups in rotated order against
                                the library of c29343c; not kept): docs/thin.md;
                                thin_padded_rotation_ncu_h200.csv (Nsight Compute counts of the same
                                two builds, medians of 3 launches per shape, written from ncu --csv)
    docs/data/thin_wide_walk_ab_h200.csv, thin_wide_walk_ab_h200_run2.csv  bench_ab --set thin --csv
                                as written (step 2 of wide chunks by lanes walking skewed against
                                the kernel of 15737d7; not kept; quoted in the prose of docs/thin.md)
    docs/data/thin_carry_repeat_ab_h100.csv, thin_carry_repeat_ab_h100_run2.csv  bench_ab --set thin
                                --csv as written (the tall write-out with its carry table repeated to
                                K + G - 1 entries against the kernel of 8585f02; not kept; quoted in the
                                prose of docs/thin.md)
    docs/data/prefetch_h100.csv, prefetch_batch_h100.csv, host_time_h100.csv  A/B runs of the
                                library's L2 prefetch and of its per-device caches: docs/tiles.md
                                (host_time_h100.csv: docs/library.md)
    docs/data/prefetch40_ab_h100.csv  bench_ab --csv as written (a 40 MiB prefetch against the
                                shipped 24 MiB): docs/tiles.md
    docs/data/ticket_ab_h100.csv  bench_ab --csv as written (the 2-D kernel of 15c4b93 against one that
                                takes its next ticket when its look-back ends and has one barrier
                                less; not kept): docs/tiles.md; ticket_ab_h100_run2.csv, its second
                                run, and ticket_unroll8_ab_h100.csv (that kernel's column sums
                                added 8 tiles at a time against 4), as written (quoted in the prose)
    docs/data/unroll4_ab_h200.csv  bench_ab --csv as written (the shared-memory row loops of the
                                2-D kernel's local scan and write-out unrolled 4 times against the
                                kernel of 5366fca; not kept): docs/tiles.md; unroll4_write_ab_h200.csv,
                                the same against a build with only the scan's loop unrolled
                                (quoted in the prose)
    docs/data/warps_left_ab_h200.csv  bench_ab --csv as written (the 2-D kernel of ea3ffc4, which
                                adds up each row's sums of the warps to the left once per tile,
                                against the kernel of 13bfef3): docs/tiles.md
    docs/data/batch_order_ab_h200.csv  bench_ab --csv as written (the 2-D kernel of 2da0c77, which
                                hands out a batch's tiles a tile row of every image at a time,
                                against the kernel of 83daaf6): docs/tiles.md
    docs/data/aggregates_first_ab_h200.csv  bench_ab --csv as written (the 2-D kernel's aggregates
                                published before its local scan; not kept): docs/tiles.md
    docs/data/early_loads_ab_h100.csv  bench_ab --csv as written (the next tile's loads started during
                                the write-out against the kernel of 15c4b93; not kept): docs/tiles.md;
                                its second run early_loads_ab_h100_run2.csv (quoted in the prose);
                                early_loads_noprefetch_ab_h100.csv and its _run2, the same without
                                the L2 prefetch (quoted in the prose, no table)
    docs/data/clear_flags_ab_h100.csv, clear_flags_ab_h200.csv  bench_ab --csv as written (launches
                                after a memset of their flags against launches that overlap the
                                clear_flags kernel; the H200 run's build overlapped the 2-D launches
                                only): docs/tiles.md; their second runs _run2 (quoted in the prose)
    docs/data/timeline_clear_h100.csv  bench_timeline --csv of the library of e62f8a2 (quoted in the
                                prose of docs/tiles.md, no table)
    docs/data/ws_roles_ab_h200.csv  bench_ab --csv as written (the kernel of 15c4b93 against a
                                warp-specialized one for f32: producer, reducer and looker warps;
                                not kept): docs/tiles.md; its second run _run2, and
                                ws_groups_ab_h200.csv and ws_aggregator_ab_h200.csv (two other
                                designs, each with a _run2), ws_no_lookahead_ab_h200.csv and
                                ws_registers_ab_h200.csv (+ _run2), two changes to it, as written
                                (quoted in the prose)
    docs/data/ws_ncu_h200.csv   Nsight Compute's warp-state samples of that kernel, summed by role:
                                docs/tiles.md
    docs/data/large_squares_h100.csv, large_squares_h200.csv  build/peers rows of satlib from
                                32768² to 65536² (harness CSV columns, the run's metadata and
                                command in front): docs/library.md
    docs/data/shape128x3_ab_h200.csv, shape128x4_ab_h200.csv  bench_ab --csv as written (f32's
                                large tiles of 128 threads, as base, against the shipped 256-thread
                                ones): docs/tiles.md; shape128x3's second run _run2 (quoted in
                                the prose)
    docs/data/strips_ab_h200.csv, strips_ab_h100.csv  bench_ab --csv as written (the kernel of 15c4b93
                                against a strip walk, a ticket per tile row; not kept):
                                docs/tiles.md; their second runs _run2 (quoted in the prose)
    plots/sample_bench.csv      an H200 `make bench` run (its metadata in plots/sample_bench.json),
                                also `make plots`'s sample: docs/lab8.md's Measurements tables
    plots/bench_h100_2026-11-28.csv, plots/bench_h200_2026-11-28.csv  the `make bench` runs of
                                docs/results.md: docs/lab10.md's tables (lab 10's rows)
    plots/bench_h200_2026-11-21.csv  the H200 `make bench` run of that date (metadata in its .json): the
                                Measured tables of docs/lab1.md, lab2.md, lab3.md, lab4.md and lab7.md
                                (lab 7's also at other sizes), lab5.md's Results tables with the
                                stage-cost fit, and lab6.md's f64 sweep and band stage (priced by
                                lab 5's fit)
    docs/data/lab2_ncu_h200.csv, lab3_block_shapes_h200.csv, lab6_sweep_h200.csv  runs outside
                                `make bench` (lab 2's per-pass ncu times, lab 3's block shapes,
                                lab 6's r sweep), cells as written: docs/lab2.md, lab3.md, lab6.md
    docs/data/lab7_block_shapes_h200.csv  lab 7's strip pass with other block shapes: docs/lab7.md
    docs/data/lab3_ncu_h200.csv, lab3_vector_transpose_h200.csv, lab4_ncu_h200.csv  lab 3's 4R4W and
                                lab 4's 2R1W per kernel (ncu), lab 3's 16-byte-vector transpose,
                                cells as written: docs/lab3.md, lab4.md
    docs/data/lab7_kernels_h200.csv, lab7_experiments_h200.csv  lab 7's ScanRow and ScanColumn
                                timed alone, and ScanRowColumn with changes not in the code:
                                docs/lab7.md

Every docs/data CSV row carries its run's GPU, driver, CUDA version and date ("not recorded" where
the run's notes did not keep one: the table then says so). Each table goes between its
<!-- BEGIN/END ... TABLE --> markers; nothing outside the markers is touched, and a BEGIN marker
in docs/*.md that TABLES does not name is an error. --docs reads the
docs (and DIR/data/) from another folder. --check writes nothing: it regenerates into a
temporary folder, compares, and exits 1 naming every doc that differs (a hand edit).
"""
import argparse
import csv
import filecmp
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_rows(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        raise ValueError(f"{path}: no rows")
    return rows


NOT_RECORDED = "not recorded"  # a metadata field the run's notes did not keep


def run_line(first):
    """GPU, driver, CUDA, date; fields the run did not record are named as such, never guessed."""
    known = [first["gpu"]] + [f"{label}{first[k]}" for k, label in (("driver", "driver "), ("cuda", "CUDA "), ("date", ""))
                              if first[k] != NOT_RECORDED]
    missing = [name for k, name in (("driver", "driver"), ("cuda", "CUDA version"), ("date", "date"))
               if first[k] == NOT_RECORDED]
    said = ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else "".join(missing)
    return ", ".join(known) + (f" ({said} not recorded)" if missing else "")


def ratio(r):
    """Time ÷ copy of a harness CSV row, from whichever the CSV keeps more exactly: its times
    (rounded to 0.001 ms, coarse for small images: 0.026 / 0.012 for 1080×1920) or its pct_copy
    (100 × copy ÷ time before that rounding, to 0.1 %: coarse for ratios in the hundreds)."""
    median, copy = float(r["median_ms"]), float(r["copy_ms"])
    pct = float(r["pct_copy"]) if r.get("pct_copy") else 0.0
    times_error = 0.0005 / median + 0.0005 / copy
    pct_error = 0.05 / pct if pct > 0 else float("inf")
    return 100.0 / pct if pct_error < times_error else median / copy


def shape(r):
    return f'{r["rows"]}x{r["cols"]}'


def batch_shape(r):
    """A bench_ab row's shape, its image count in front where it is a batch ("64 × 1080x1920")."""
    return (f'{r["batch"]} × ' if int(r["batch"]) > 1 else "") + shape(r)


def type_label(t):
    """A type pair as the handouts write it (u8i32 -> u8→i32)."""
    return {"u8i32": "u8→i32", "u8f32": "u8→f32", "u16f64": "u16→f64", "f32f64": "f32→f64"}.get(t, t)


def one_image(rows):
    """Harness CSV rows of one image per run: a row of a --batch run (its batch column above 1)
    is left out; CSV files written before that column hold one image per row."""
    return [r for r in rows if int(r.get("batch") or 1) == 1]


def library_table(path):
    """satlib's time / copy per shape and type, CUB's and NPP's beside it."""
    rows = one_image(read_rows(path))
    by = {(r["variant"], r["type"], shape(r)): r for r in rows}
    shapes = list(dict.fromkeys(shape(r) for r in rows))
    types = list(dict.fromkeys(r["type"] for r in rows))
    out = [f"{run_line(rows[0])}: {rows[0]['source']}, time / copy "
           "(rows x cols; median time of satlib in ms in brackets; the ratios come from the run's "
           "unrounded times where the 0.001 ms rounding of the CSV's times would be coarse).", "",
           "| shape | type | satlib | CUB two-pass | NPP (u8 only) |",
           "|---|---|---:|---:|---:|"]
    for s in shapes:
        for t in types:
            lib = by.get(("satlib", t, s))
            if not lib:
                continue
            cells = [f'{ratio(lib):.2f} ({float(lib["median_ms"]):.3f})']
            for v in ("CUB-two-pass", "NPP-integral"):
                r = by.get((v, t, s))
                cells.append(f"{ratio(r):.2f}" if r else "-")
            out.append(f"| {s} | {t} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def large_squares_table(path):
    """satlib on squares from 32768² up (harness rows of peers, with the run's metadata in
    front): time, the copy's, their ratio against the target, and both rates in TB/s of input
    and output (the harness's gbps, and the copy's from the same bytes). Each command (the CSV's
    source) is one process: numbered in the order they appear."""
    rows = read_rows(path)
    processes = {source: k + 1 for k, source in enumerate(dict.fromkeys(r["source"] for r in rows))}
    out = [f"{run_line(rows[0])}: `build/peers --variant satlib` (each process's command in the CSV's "
           "source column), median of 5; TB/s: input and output bytes ÷ time (the copy moves as many, "
           "half read, half written)", "",
           "| process | shape | type | satlib ms | copy ms | satlib ÷ copy (target ≤ 1.11) | satlib TB/s | copy TB/s |",
           "|---:|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        median, copy, tbps = float(r["median_ms"]), float(r["copy_ms"]), float(r["gbps"]) / 1000
        x = ratio(r)
        verdict = "met" if x <= 1.11 else "missed"
        out.append(f"| {processes[r['source']]} | {shape(r)} | {type_label(r['type'])} | {median:.3f} | {copy:.3f} | "
                   f"{x:.3f} ({verdict}) | {tbps:.2f} | {tbps * median / copy:.2f} |")
    return "\n".join(out)


def lab9_table(path):
    """The library (satlib) on the square shapes of 4096² and up: time / copy per type."""
    rows = [r for r in one_image(read_rows(path)) if r["variant"] == "satlib"
            and r["rows"] == r["cols"] and int(r["rows"]) >= 4096]
    by = {(r["type"], int(r["rows"])): r for r in rows}
    sizes = sorted({int(r["rows"]) for r in rows})
    types = list(dict.fromkeys(r["type"] for r in rows))
    out = [f"{run_line(rows[0])}; {rows[0]['source']}, time ÷ a device-to-device copy "
           "of the same bytes timed in the same process (median time and copy in ms in brackets, rounded "
           "to 0.001 ms; the ratios come from the run's unrounded times):", "",
           "| type | " + " | ".join(f"{n}²" for n in sizes) + " |", "|------|" + "-------|" * len(sizes)]
    for t in types:
        cells = []
        for n in sizes:
            r = by.get((t, n))
            cells.append(f'{ratio(r):.2f} ({float(r["median_ms"]):.3f} / {float(r["copy_ms"]):.3f})'
                         if r else "-")
        out.append(f"| {type_label(t)} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def python_table(path):
    rows = read_rows(path)
    cases = list(dict.fromkeys(r["case"] for r in rows))
    methods = ["satlib", "satlib+squares", "torch", "kornia", "cupy", "npp"]
    methods = [m for m in methods if any(r["method"] == m for r in rows)]
    by = {(r["case"], r["method"]): float(r["ratio_to_copy"]) for r in rows}
    quick = " --quick" if all(int(r["rows"]) <= 4096 for r in rows) else ""  # the full run has 8192^2
    out = [f'{rows[0]["gpu"]}: `tools/bench_python.py{quick}` (time / copy, median; one call per '
           "timed repetition, asynchronous; torch ÷ satlib: torch's time over satlib's).", "",
           "| case | " + " | ".join(methods) + " | torch ÷ satlib |", "|---|" + "---:|" * (len(methods) + 1)]
    for c in cases:
        has_both = (c, "torch") in by and (c, "satlib") in by
        speedup = f'{by[(c, "torch")] / by[(c, "satlib")]:.1f}' if has_both else "-"
        out.append(f"| {c} | " + " | ".join(f"{by[(c, m)]:.2f}" if (c, m) in by else "-" for m in methods) +
                   f" | {speedup} |")
    return "\n".join(out)


def thin_table(path):
    """sat::thin's run: the CSV's numbers as written (the ratio was taken from unrounded times)."""
    rows = read_rows(path)
    out = [f"{run_line(rows[0])}:", "",
           "| shape | type | ms | copy ms | time / copy | scratch % | check |",
           "|---|---|---:|---:|---:|---:|---|"]
    for r in rows:
        out.append(f'| {shape(r)} | {type_label(r["type"])} | {r["ms"]} | {r["copy_ms"]} | '
                   f'{r["time_per_copy"]} | {r["scratch_pct"]} | {r["check"]} |')
    return "\n".join(out)


def bench_table(path, lab, every_square=True):
    """Lab `lab`'s rows of a `make bench` CSV (its metadata in the .json beside it): f32 at the
    suite's target size (else the largest square with every variant) with times, then, with
    every_square, time / copy for every type and square size."""
    meta = json.loads(path.with_suffix(".json").read_text())
    rows = [r for r in read_rows(path) if r["lab"] == lab]
    if not rows:
        raise ValueError(f"no lab {lab} rows")
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    types = list(dict.fromkeys(r["type"] for r in rows))
    squares = sorted({int(r["rows"]) for r in rows if r["rows"] == r["cols"]})
    by = {(r["variant"], r["type"], int(r["rows"])): r for r in rows if r["rows"] == r["cols"]}
    # The suite's target shape (DESIGN.md), else the largest square with every variant.
    n = 16384 if all((v, "f32", 16384) in by for v in variants) else \
        max(s for s in squares if all((v, "f32", s) in by for v in variants))
    copies = sorted({f'{float(by[(v, "f32", n)]["copy_ms"]):.3f}' for v in variants})
    copy = copies[0] if len(copies) == 1 else f"{copies[0]}–{copies[-1]}"
    out = [f'{meta["gpu"]}, driver {meta["driver"]}, CUDA {meta["cuda_driver_version"]}, {meta["date"]}: '
           f"`make bench` (plots/{path.name}), f32 {n}², "
           f'median of {by[(variants[0], "f32", n)]["reps"]}; copy = a device-to-device copy of the same bytes '
           f"timed next to each variant in the same run, {copy} ms:", "",
           "| variant | ms | % of copy | time / copy |", "|---------|---:|---:|---:|"]
    for v in variants:
        r = by[(v, "f32", n)]
        out.append(f'| {v} | {float(r["median_ms"]):.3f} | {float(r["pct_copy"]):.1f} | '
                   f'{float(r["median_ms"]) / float(r["copy_ms"]):.2f} |')
    if not every_square:
        return "\n".join(out)
    out += ["", "Time ÷ copy for every square of that run:", "",
            "| type | variant | " + " | ".join(f"{s}²" for s in squares) + " |",
            "|---|---|" + "---:|" * len(squares)]
    for t in types:
        for v in variants:
            cells = [f'{float(r["median_ms"]) / float(r["copy_ms"]):.2f}' if (r := by.get((v, t, s))) else "-"
                     for s in squares]
            out.append(f"| {t} | {v} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def bench_run_line(path):
    """The run of a `make bench` CSV, from the .json beside it."""
    meta = json.loads(path.with_suffix(".json").read_text())
    return (f'{meta["gpu"]}, driver {meta["driver"]}, CUDA {meta["cuda_driver_version"]}, {meta["date"]}: '
            f"`make bench` (plots/{path.name})")


# variant_table's cells: what -> (column heading after "type n²", the cell of a harness CSV row)
VARIANT_CELLS = {
    "ms": (" ms", lambda r: f'{float(r["median_ms"]):.3f}'),
    "ratio": (" ÷ copy", lambda r: f'{float(r["median_ms"]) / float(r["copy_ms"]):.2f}'),
    "copy": (" copy ms", lambda r: f'{float(r["copy_ms"]):.3f}'),
    "pred": (" HMM ms", lambda r: f'{float(r["predicted_ms"]):.3f}'),
}


def variant_table(path, lab, cells, copy="the device-to-device copy"):
    """One row per variant of lab `lab` in a `make bench` CSV; cells: (type, n, what) for n x n
    with what a key of VARIANT_CELLS: the median ("ms"), time / `copy` of the same bytes timed
    next to it ("ratio"), that copy's time ("copy") or the harness's HMM prediction ("pred");
    - where the run has no passing row."""
    rows = [r for r in read_rows(path) if r["lab"] == lab and r["rows"] == r["cols"] and r["check"] == "PASS"]
    by = {(r["variant"], r["type"], int(r["rows"])): r for r in rows}
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    reps = sorted({by[k]["reps"] for k in by if (k[1], k[2]) in {(t, n) for t, n, _ in cells}}, key=int)
    head = lambda t, n, what: f'{type_label(t)} {n}²' + VARIANT_CELLS[what][0]
    copied = any(what in ("ratio", "copy") for _, _, what in cells)
    predicted = any(what == "pred" for _, _, what in cells)
    out = [f"{bench_run_line(path)}, median of {' or '.join(reps)}"
           + (f"; copy = {copy} of the same bytes timed next to each variant" if copied else "")
           + ("; HMM = the harness's prediction from the run's calibration" if predicted else "") + ":", "",
           "| variant | " + " | ".join(head(*c) for c in cells) + " |", "|---|" + "---:|" * len(cells)]
    for v in variants:
        vals = []
        for t, n, what in cells:
            r = by.get((v, t, n))
            vals.append("-" if r is None else VARIANT_CELLS[what][1](r))
        out.append(f"| {v} | " + " | ".join(vals) + " |")
    return "\n".join(out)


def sizes_table(path, lab, variant, sizes):
    """One variant of a `make bench` CSV at n x n for each n: time, copy, time / copy and the
    harness's HMM prediction."""
    by = {int(r["rows"]): r for r in read_rows(path)
          if r["lab"] == lab and r["variant"] == variant and r["type"] == "f32" and r["rows"] == r["cols"]}
    out = [f"{bench_run_line(path)}, f32, median of " + " and ".join(by[n]["reps"] for n in sizes)
           + " (" + ", ".join(f"{n}²" for n in sizes) + "):", "",
           f"| n | {variant} ms | copy ms | {variant} ÷ copy | HMM prediction (harness) ms |", "|---|---:|---:|---:|---:|"]
    for n in sizes:
        r = by[n]
        out.append(f'| {n}² | {float(r["median_ms"]):.3f} | {float(r["copy_ms"]):.3f} | '
                   f'{float(r["median_ms"]) / float(r["copy_ms"]):.2f} | {float(r["predicted_ms"]):.2f} |')
    return "\n".join(out)


def bench_rows(path, t):
    """The passing t x n x n rows of a `make bench` CSV, by (lab, variant, n)."""
    return {(r["lab"], r["variant"], int(r["rows"])): r for r in read_rows(path)
            if r["type"] == t and r["rows"] == r["cols"] and r["check"] == "PASS"}


def span(values, fmt):
    """a–b of the formatted values (one value when they agree)."""
    cells = sorted(set(values))
    lo, hi = fmt(cells[0]), fmt(cells[-1])
    return lo if lo == hi else f"{lo}–{hi}"


def thousands(x):
    """x rounded to thousands, as the handouts write it (206 000)."""
    return f"{x / 1e3:,.0f}".replace(",", " ") + " 000"


def model_table(path, lab, sizes, columns, t="f32"):
    """Measured against predicted, one row per n x n: columns are (what, lab, variant) with what
    "ms" (median), "pred" (the harness's HMM prediction) or "pct" (% of copy speed), or
    ("over", (lab, variant), (lab, variant)) for a ratio of medians; variants of other labs than
    `lab` are named with their lab."""
    by = bench_rows(path, t)
    used = [by[(lab, v, n)] for what, *cols in columns for n in sizes
            for lab, v in ([cols] if what != "over" else cols[0:2]) if (lab, v, n) in by]
    f = lambda key: [float(r[key]) for r in used]
    head = {"ms": "{} ms", "pred": "{} pred. ms", "pct": "{} % of copy"}
    name = lambda home, v: v + (f" (lab {home})" if home != lab else "")
    out = [f"{bench_run_line(path)}, {t}, median of {' or '.join(sorted({r['reps'] for r in used}, key=int))}; "
           f"pred. = the harness's HMM prediction from the run's calibration at each size: 1 time unit = "
           f"{span(f('unit_ns'), lambda x: f'{x:.3f}')} ns, l = {span(f('l_launch_us'), lambda x: f'{x:.2f}')} µs "
           f"per kernel launch, {span(f('l_graph_us'), lambda x: f'{x:.2f}')} µs per graph kernel node:", ""]
    heads = [f"{name(*cols[0])} ÷ {name(*cols[1])}" if what == "over" else head[what].format(name(*cols))
             for what, *cols in columns]
    out += ["| n | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(columns)]
    for n in sizes:
        cells = []
        for what, *cols in columns:
            if what == "over":
                a, b = by.get((*cols[0], n)), by.get((*cols[1], n))
                cells.append(f'{float(a["median_ms"]) / float(b["median_ms"]):.1f}' if a and b else "-")
                continue
            r = by.get((*cols, n))
            cells.append("-" if r is None else f'{float(r["median_ms"]):.3f}' if what == "ms"
                         else f'{float(r["predicted_ms"]):.3f}' if what == "pred" else f'{float(r["pct_copy"]):.1f}')
        out.append(f"| {n}² | " + " | ".join(cells) + " |")
    return "\n".join(out)


def stage_fit(by, lab, v):
    """time = α·stages + β·n through the two largest n x n of lab `lab`'s variant v in bench_rows
    `by` (stages = the harness's latency count): ((a, b), (row a, row b), α in s, β in s per element)."""
    a, b = sorted(n for (l, var, n) in by if (l, var) == (lab, v))[-2:]
    ra, rb = by[(lab, v, a)], by[(lab, v, b)]
    # Solve [stages n] [α β]ᵀ = time for the two sizes.
    sa, sb = float(ra["hmm_latencies"]), float(rb["hmm_latencies"])
    ta, tb = float(ra["median_ms"]) * 1e-3, float(rb["median_ms"]) * 1e-3
    det = sa * b * b - sb * a * a
    return (a, b), (ra, rb), (ta * b * b - tb * a * a) / det, (sa * tb - sb * ta) / det


def stage_fit_table(path, lab, variants, base, t="f32"):
    """Lab 5's stage cost: time = α·stages + β·n fitted through the two largest sizes of each
    variant (stages = the harness's latency count), the HMM's crossover with `base` (√n > 2l/unit,
    from the calibration at those sizes) and the fit's: α·stages(n) + β·n = β_base·n."""
    by = bench_rows(path, t)
    base_n = max(n for (l, v, n) in by if (l, v) == base)
    b_base = float(by[(*base, base_n)]["median_ms"]) * 1e-3 / base_n ** 2
    out = [f"{bench_run_line(path)}, {t}; {base[1]} (lab {base[0]}) costs β = {b_base * 1e12:.2f} ps per element "
           f"at {base_n}²; a fit through two points, so the crossovers are orders of magnitude:", "",
           "| variant | sizes fitted | calibrated l µs | HMM crossover √n > 2l/unit | fitted α µs per stage "
           "| fitted β ps per element | fitted crossover √n |", "|---|---|---:|---:|---:|---:|---:|"]
    for v in variants:
        (a, b), (ra, rb), alpha, beta = stage_fit(by, lab, v)
        key = "l_graph_us" if v.endswith("graph") else "l_launch_us"
        ls = [float(r[key]) for r in (ra, rb)]
        hmm = [2 * float(r[key]) * 1e3 / float(r["unit_ns"]) for r in (ra, rb)]
        per_side = float(rb["hmm_latencies"]) / b  # stages grow as √n
        cross = thousands(alpha * per_side / (b_base - beta)) if beta < b_base else "never"
        out.append(f"| {v} | {a}², {b}² | {span(ls, lambda x: f'{x:.2f}')} | {span(hmm, thousands)} | "
                   f"{alpha * 1e6:.2f} | {beta * 1e12:.2f} | {cross} |")
    return "\n".join(out)


# The paper's GTX 780 Ti, f64, rough bounds from its Table II (docs/lab6.md derives them).
PAPER_R_STAR = "| GTX 780 Ti, f64 (paper, rough: from Table II) | ~2 ns | ~14 µs per stage | ~7 000 | 0.7 | 0.2 | 0.05 |"


def r_star_table(path, lab, sizes, t="f32"):
    """Lab 6's optimum r* = (l / (unit·√n))², clipped to [0, 1], from the run's calibration at
    each n x n, with kernel launches and with graph launches, below the paper's GPU."""
    by = bench_rows(path, t)
    rows = [r for (l, v, n), r in by.items() if l == lab and n in sizes]
    gpu = json.loads(path.with_suffix(".json").read_text())["gpu"]
    out = [f"The {gpu} rows: the harness's calibration at " + ", ".join(f"{n}²" for n in sizes)
           + f" in lab {lab}'s rows of {bench_run_line(path)}; the 780 Ti row is the paper's:", "",
           "| GPU | unit | l | l/unit | " + " | ".join(f"r* at √n = {n // 1024}K" for n in sizes) + " |",
           "|---|---|---|---|" + "---|" * len(sizes), PAPER_R_STAR]
    for key, how in (("l_launch_us", "kernel launches"), ("l_graph_us", "graph launches")):
        l_unit = {int(r["rows"]): float(r[key]) * 1e3 / float(r["unit_ns"]) for r in rows}
        r_star = [min(1.0, (l_unit[n] / n) ** 2) for n in sizes]
        out.append(f"| {gpu}, {t}, {how} (measured) | {span([float(r['unit_ns']) for r in rows], lambda x: f'{x:.3f}')} ns | "
                   f"{span([float(r[key]) for r in rows], lambda x: f'{x:.2f}')} µs | {span(l_unit.values(), thousands)} | "
                   + " | ".join("1" if x >= 1 else f"{x:.2f}" for x in r_star) + " |")
    return "\n".join(out)


def r_sweep_table(path, lab, variant, base, cases):
    """Lab 6's split in a `make bench` run, one row per (type, n) of `cases`: the swept r's two
    smallest values and its best, the fixed r = 0.25 (also ÷ the copy timed next to it), r = 1
    and `base` (lab, variant) at the same size; - where the run has no such row."""
    rows = [r for r in read_rows(path) if r["lab"] == lab and r["variant"] == variant
            and r["rows"] == r["cols"] and r["check"] == "PASS"]
    ms = lambda r: f'{float(r["median_ms"]):.3f}' if r else "-"
    used = []
    out = ["| type, n | r = 0 ms | smallest r > 0: ms (r) | r = 0.25 ms | r = 0.25 ÷ copy | r = 1 ms | best r "
           f"| {base[1]} (lab {base[0]}) ms |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t, n in cases:
        mine = sorted((r for r in rows if r["type"] == t and int(r["rows"]) == n), key=lambda r: float(r["r"]))
        if not mine:
            raise ValueError(f"no lab {lab} {variant} rows at {t} {n}²")
        at = lambda x: next((r for r in mine if float(r["r"]) == x), None)
        above = [r for r in mine if float(r["r"]) > 0]
        first = above[0] if above and at(0.0) and above[0] is not at(0.25) else None
        fixed, best = at(0.25), min(mine, key=lambda r: float(r["median_ms"]))
        two = bench_rows(path, t).get((*base, n))
        used += mine + [two] if two else mine
        swept = len(mine) > 1
        out.append(f"| {type_label(t)} {n}² | {ms(at(0.0))} | "
                   + (f'{ms(first)} ({float(first["r"]):.3g})' if first else "-") + f" | {ms(fixed)} | "
                   + (f'{float(fixed["median_ms"]) / float(fixed["copy_ms"]):.2f}' if fixed else "-")
                   + f" | {ms(at(1.0))} | " + (f'{float(best["r"]):.3g}' if swept else "-") + f" | {ms(two)} |")
    reps = " or ".join(sorted({r["reps"] for r in used}, key=int))
    return "\n".join([f"{bench_run_line(path)}, median of {reps}; copy = the device-to-device copy of the same "
                      "bytes timed next to each run (- where the run has no such r):", ""] + out)


def band_stage_table(path, stage, base, n, w=32, t="f32"):
    """One full-width band stage of lab 6 at n x n (n/w tiles of w x w) priced by the stage fit of
    lab 5's `stage` (lab, variant): α per stage + β per element, against `base`'s time per element."""
    by = bench_rows(path, t)
    (a, b), _, alpha, beta = stage_fit(by, *stage)
    elements = (n // w) * w * w
    mib = elements * {"f32": 4, "f64": 8}[t] / 2 ** 20
    total = alpha + beta * elements
    base_ps = float(by[(*base, n)]["median_ms"]) * 1e-3 / n ** 2 * 1e12
    return "\n".join([
        f"{bench_run_line(path)}, {t}: one full-width band stage at {n}² ({n // w} tiles, {mib:.0f} MiB in and "
        f"{mib:.0f} MiB out), priced by the fit time = α·stages + β·n of lab {stage[0]}'s {stage[1]} through "
        f"{a}² and {b}² (docs/lab{stage[0]}.md), against {base[1]} (lab {base[0]}) at {n}²:", "",
        "| | µs | ps per element |", "|---|---:|---:|",
        f"| α: the stage's fixed cost | {alpha * 1e6:.2f} | - |",
        f"| β × {elements} elements: its traffic | {beta * elements * 1e6:.2f} | {beta * 1e12:.2f} |",
        f"| the band stage | {total * 1e6:.2f} | {total / elements * 1e12:.2f} |",
        f"| {base[1]} (lab {base[0]}), the whole matrix | - | {base_ps:.2f} |"])


BENCH_H200 = "plots/bench_h200_2026-11-21.csv"
# The `make bench` runs of docs/results.md (`make results`, Makefile RESULTS_CSV), one per GPU.
RESULTS_BENCH = {"H100": "plots/bench_h100_2026-11-28.csv", "H200": "plots/bench_h200_2026-11-28.csv"}


def lab8_table(path):
    return bench_table(path, "8")


def lab7_table(path):
    return bench_table(path, "7", every_square=False)


def batch_source(path):
    """The commit a `make bench` run's batch CSV timed: the `source` of the run's .json in plots/
    whose batch CSV holds the same bytes as `path` (None: no such run, or its .json names none)."""
    data = Path(path).read_bytes()
    for meta_path in sorted((ROOT / "plots").glob("*.json")):
        meta = json.loads(meta_path.read_text())
        batch_csv = ROOT / "plots" / meta.get("batch_csv", "")
        if meta.get("batch_csv") and batch_csv.is_file() and batch_csv.read_bytes() == data and meta.get("source"):
            return meta["source"]
    return None


def batch_table(path, library=None, reps=20):
    """lib/bench/bench_batch.cpp --csv: a batch in one launch, one call per image, sums + squares;
    the library's commit is its `make bench` run's (batch_source), else `library` (a run whose
    .json names no commit)."""
    library = batch_source(path) or library
    if library is None:
        raise ValueError(f"{path}: no run in plots/ with this batch CSV names its commit")
    rows = read_rows(path)
    by = {(r["batch"], r["rows"], r["cols"], r["type"], r["method"]): r for r in rows}
    keys = list(dict.fromkeys((r["batch"], r["rows"], r["cols"], r["type"]) for r in rows))
    out = [f"{run_line(rows[0])}: `build/lib/bench_batch --reps {reps} --csv FILE` of the library of {library}, "
           f"median of {reps}, L2 flushed before each; "
           "time ÷ a device-to-device copy of the same bytes (median ms in brackets):", "",
           "| images | type | one call, one launch | one call per image | sums + squares, one call | check |",
           "|---|---|---:|---:|---:|---|"]
    for b, h, w, t in keys:
        cells = []
        for method in ("batch", "per image", "+ squares"):
            r = by.get((b, h, w, t, method))
            cells.append(f'{float(r["time_per_copy"]):.2f} ({float(r["median_ms"]):.3f})' if r else "-")
        check = by.get((b, h, w, t, "batch"), {}).get("check", "-")
        out.append(f"| {b} × {h}×{w} | {type_label(t)} | " + " | ".join(cells) + f" | {check} |")
    return "\n".join(out)


def timeline_table(path):
    """lib/bench/bench_timeline.cu --csv: when the tiles of one library call are written, in µs
    from a one-thread kernel launched just before the call (its scratch allocated and zeroed in
    the call)."""
    rows = read_rows(path)
    out = [f"{run_line(rows[0])}: `build/lib/bench_timeline --csv FILE`; call: median of 20, L2 flushed; the other "
           "columns: µs from a one-thread kernel just before the call until the first, 10 %, 50 %, 90 % and last "
           "32 × 32 piece of the output is written and until a one-thread kernel just after the call runs (end; "
           "the call of five whose last piece came earliest); middle 80 %: the input and output bytes of the "
           "pieces written between the 10 % and 90 % marks ÷ that time (where one round of tiles covers the "
           "image, their loads come before the 10 % mark, and this is no DRAM rate):", "",
           "| shape | type | call µs | first | 10 % | 50 % | 90 % | last | end | middle 80 % GB/s |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        cells = [r[k] for k in ("call_us", "first_us", "p10_us", "p50_us", "p90_us", "last_us", "end_us", "middle_gbps")]
        out.append(f"| {r['shape'].replace('x', '×')} | {type_label(r['type'])} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def case_label(case):
    """bench_tile_times' case names: '1080x1920' -> '1080×1920', '64x1080x1920' -> '64 × 1080×1920'."""
    parts = case.split("x")
    return (f"{parts[0]} × " if len(parts) == 3 else "") + "×".join(parts[-2:])


def tile_times_table(path):
    """lib/bench/bench_tile_times.cu --csv: each step of the 2-D kernel's tile loop, per case the
    median and (in brackets) the 90th percentile over its tiles, in µs."""
    rows = read_rows(path)
    steps = ("start", "load", "publish", "left", "up", "above", "write", "tile")
    out = [f"{run_line(rows[0])}: `build/lib/bench_tile_times --csv FILE` (the library built with "
           "`-DSATLIB_TILE_STAMPS`); µs per tile, median (90th percentile) over the case's tiles (start: over the "
           "first round's; load: from the top of the tile loop, which follows the write-out of the block's tile before; left: the left edge's zeros included; above: 0 where the tile above was earlier); of "
           "five calls between two one-thread kernels, L2 flushed, the one whose last tile was written first; last "
           "and end: µs from the kernel before the call until the last tile's stores are issued (thread 0's) and "
           "until the kernel after the call runs", "",
           "| case | type | tiles | " + " | ".join(steps) + " | last | end |",
           "|---|---|---:|" + "---:|" * (len(steps) + 2)]
    for r in rows:
        cells = [f'{float(r[s + "_med_us"]):.1f} ({float(r[s + "_p90_us"]):.1f})' for s in steps]
        out.append(f"| {case_label(r['case'])} | {type_label(r['type'])} | {r['tiles']} | " + " | ".join(cells) +
                   f" | {r['last_written_us']} | {r['end_us']} |")
    return "\n".join(out)


def tile_waits_table(path):
    """tools/tile_waits.py's CSV: how long the look-backs take once what they wait for has been
    published, from the per-ticket stamps of one bench_tile_times run, in µs."""
    rows = read_rows(path)
    out = [f"{run_line(rows[0])}: `tools/tile_waits.py` on the stamps of the run above; µs, medians over the "
           "tiles (90th percentile in brackets); first ticket wait: first-round blocks only, from the block's start, "
           "and its parts (thread 0's): the L2 prefetch issued, the wait for the kernel that clears the flags, the "
           "ticket's atomic (each part's own median: they need not add up to the wait); first tickets: the first "
           "round's last ticket taken after its first; drain: a later ticket until the top of the tile loop (a "
           "barrier, the release of done, the next tile's prefetch issue, the write-out of the tile before and a "
           "barrier); load: "
           "the top of the tile loop until the local scan's end; partial spread: "
           "per tile row, median over the tile rows; row ready: row_done after the latest partial of the tile "
           "and the up to 32 tiles to its left; column 1, last column: row ready in tile column 1 and in the "
           "last tile column; row step: row_done after the later of the tile's partial and its left "
           "neighbour's row_done; up ready: the carries (thread 0's) after the later of the tile's row_done "
           "and its first window's (up to 32 tiles above); release: done after the carries", "",
           "| case | type | tiles per tile row | first ticket wait | prefetch, flags, atomic | first tickets | drain | "
           "load p10–p90 | partial spread | row ready | column 1 | last column | row step | up ready | release |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        cell = lambda k: r[k] if r[k] else "–"
        out.append(f"| {case_label(r['case'])} | {type_label(r['type'])} | {r['tiles_x']} | {r['ticket_wait_us']} | "
                   f"{r['prefetch_issue_us']}, {r['flags_wait_us']}, {r['ticket_atomic_us']} | "
                   f"{r['first_tickets_us']} | {cell('drain_med_us')} | {r['load_p10_us']}–{r['load_p90_us']} | "
                   f"{r['partial_spread_med_us']} | "
                   f"{cell('row_ready_med_us')} ({cell('row_ready_p90_us')}) | {cell('row_ready_first_med_us')} | "
                   f"{cell('row_ready_last_med_us')} | {cell('row_step_med_us')} | "
                   f"{r['up_ready_med_us']} ({r['up_ready_p90_us']}) | {r['release_med_us']} |")
    return "\n".join(out)


def tiles_table(path):
    """The library's 2-D look-back at image sizes with one tile shape for every type (a sweep):
    rows in registers + rows in shared memory x blocks per SM; "tuned" is the per-type shape."""
    rows = read_rows(path)
    cfg = lambda r: "tuned" if r["tuned"] == "yes" else f'{r["reg_rows"]} + {r["smem_rows"]} × {r["blocks_per_sm"]}'
    cfgs = list(dict.fromkeys(cfg(r) for r in rows))
    keys = list(dict.fromkeys((r["type"], r["rows"], r["cols"]) for r in rows))
    by = {(r["type"], r["rows"], r["cols"], cfg(r)): r for r in rows}
    tuned = {r["type"]: f'{r["reg_rows"]} + {r["smem_rows"]} × {r["blocks_per_sm"]}' for r in rows if r["tuned"] == "yes"}
    out = [f"{run_line(rows[0])}: `build/peers --variant satlib --reps 20`, one build per shape "
           "(`-DLAB9_REG_ROWS=.. -DLAB9_SMEM_ROWS=.. -DLAB9_MIN_BLOCKS=..`), time ÷ copy; tuned = "
           + ", ".join(f"{type_label(t)} {v}" for t, v in tuned.items()) + ":", "",
           "| type | shape | " + " | ".join(cfgs) + " |", "|---|---|" + "---:|" * len(cfgs)]
    for t, h, w in keys:
        cells = []
        for c in cfgs:
            r = by.get((t, h, w, c))
            cells.append("-" if r is None else r["time_per_copy"] if r["check"] == "PASS" else r["check"])
        out.append(f"| {type_label(t)} | {h}×{w} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def tile_sweep_table(path):
    """The library's tile shapes at 16384² (lab 9's *Choosing the tile*): rows in registers +
    rows in shared memory x blocks per SM, spills from -Xptxas -v, time or time / copy."""
    rows = read_rows(path)
    first = rows[0]
    sizes = sorted({f'{r["rows"]}²' if r["rows"] == r["cols"] else shape(r) for r in rows})
    out = [f"{run_line(first)}; {', '.join(sizes)}, two runs with seed 7 (spills from "
           "`-Xptxas -v`; - where the sweep's notes give none):", "",
           "| type | registers + shared memory rows × blocks per SM | spills (bytes per thread) | ms | time ÷ copy |",
           "|---|---|---:|---:|---:|"]
    for r in rows:
        cfg = f'{r["reg_rows"]} + {r["smem_rows"]} × {r["blocks_per_sm"]}'
        if r["tuned"] == "yes":
            cfg = f"**{cfg} (tuned)**"
        cells = [r[k] or "-" for k in ("spill_bytes", "median_ms", "time_per_copy")]
        out.append(f"| {type_label(r['type'])} | {cfg} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def ab_table(path, base, this, differs, bold="the rows whose kernels differ"):
    """A bench_ab run (lib/bench/bench_ab.cpp --csv) as written: each version's time ÷ copy and
    this ÷ base per shape; `base` and `this` name the two builds, and the rows differs(row) says
    are bold, `bold` saying what sets them apart (by default: they run different kernels, the
    others the same kernel in both)."""
    rows = read_rows(path)
    out = [f"{run_line(rows[0])}: `bench_ab`, median of alternating repetitions; base = {base}, "
           f"this = {this}; **bold**: {bold}", "",
           "| shape | type | base ÷ copy | this ÷ copy | this ÷ base | base ms | this ms | copy ms | check |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        cells = [batch_shape(r), type_label(r["type"]),
                 f'{float(r["base_per_copy"]):.3f}', f'{float(r["this_per_copy"]):.3f}',
                 f'{float(r["this_per_base"]):.3f}', f'{float(r["base_ms"]):.4f}', f'{float(r["this_ms"]):.4f}',
                 f'{float(r["copy_ms"]):.4f}', r["check"]]
        if differs(r):
            cells = [f"**{c}**" for c in cells]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def thin_chunk_geometry(r):
    """A bench_ab row's thin chunks: (K, tall, whole), whole meaning that the loads are 16-byte
    groups of the input as the row's type has them: wide rows of whole groups (bench_ab's pitch is
    the width), or tall contiguous rows whose segments are not padded (odd K; sat_thin.cu's
    plan_sized)."""
    rows, cols = int(r["rows"]), int(r["cols"])
    tall = cols <= rows
    k = cols if tall else rows
    group = {"f32": 4, "i32": 4, "f64": 2}.get(r["type"], 0)
    whole = group > 0 and (k % 2 == 1 if tall else cols % group == 0)
    return k, tall, whole


def straight_at_every_width(r):
    """A bench_ab row whose chunks load by cp.async in the build with cp.async at every K (f32,
    i32 and f64 in 16-byte groups)."""
    return thin_chunk_geometry(r)[2]


def straight_in_33e2e4a(r):
    """A bench_ab row whose chunks load by cp.async in 33e2e4a's library (copies_straight: f32
    and i32 in 16-byte groups, K >= 24)."""
    k, _, whole = thin_chunk_geometry(r)
    return whole and r["type"] in ("f32", "i32") and k >= 24


def straight_ab_table(path):
    """A bench_ab run of 33e2e4a's cp.async loads (f32 and i32 chunks of K >= 24) against the
    library of 07c3475, the rows that load by cp.async in bold."""
    return ab_table(path, "the library of 07c3475", "33e2e4a (cp.async for f32 and i32 chunks of K ≥ 24)",
                    straight_in_33e2e4a, bold="the rows whose loads differ")


def packed_in_dd97de7(r):
    """A bench_ab row of a u8 -> i32 image of 2 or 3 rows that dd97de7's library scans as one
    128-bit packed scan (below 2,000,000 columns for 2 rows, 20,000,000 for 3)."""
    below = {"2": 2000000, "3": 20000000}.get(r["rows"])
    return r["type"] == "u8i32" and below is not None and int(r["cols"]) < below


def packed_in_shipped(r):
    """A bench_ab row of a u8 -> i32 image of 2 or 3 rows that the library scans as one packed
    scan of 32-bit lanes (sat::thin::rows_packed: 3 rows, and 2 rows below 20,000,000 columns)."""
    return r["type"] == "u8i32" and (r["rows"] == "3" or (r["rows"] == "2" and int(r["cols"]) < 20000000))


def element_lanes_in_81846a5(r):
    """A bench_ab row of an f32, f64 or i32 image of 2 or 3 rows that 81846a5's library scans as
    element lanes (sat::thin::rows_in_lanes: rows narrower than 2 MiB)."""
    size = {"f32": 4, "i32": 4, "f64": 8}.get(r["type"])
    return size is not None and r["rows"] in ("2", "3") and int(r["cols"]) * size < 2 << 20


def group_lanes_measured(r):
    """A bench_ab row of --set rows that the group lanes' A/B build scans in group lanes: f32, f64
    and i32 images of 2 or 3 rows of 2 MiB or more (the shipped rule takes 2 rows of f32 and i32)."""
    size = {"f32": 4, "i32": 4, "f64": 8}.get(r["type"])
    return size is not None and r["rows"] in ("2", "3") and int(r["cols"]) * size >= 2 << 20


def group_lanes_shipped(r):
    """A bench_ab row that the shipped library scans in group lanes (sat::thin::rows_in_vectors:
    2 f32 or i32 rows of 2 MiB or more; bench_ab's images are aligned, of whole groups)."""
    return r["type"] in ("f32", "i32") and r["rows"] == "2" and int(r["cols"]) * 4 >= 2 << 20


def lane_policy_table(path):
    """The lanes' policy sweep (docs/thin.md): bench_ab runs named <stem>_<T>x<I>.csv beside
    `path` (one of them), each with base = the lanes at T threads of I items and this = 256 x 8
    (dd78b1b), each in its own process. Per image: 256 x 8's time ÷ copy in those runs (their
    range), and each policy's time ÷ 256 x 8's in its run (base ÷ this); bold: the fastest
    policy of an image where it is faster than 256 x 8."""
    stem = Path(path).name.rsplit("_", 1)[0]
    runs = {}
    for f in sorted(Path(path).parent.glob(stem + "_*x*.csv"), key=lambda f: [int(x) for x in f.stem.rsplit("_", 1)[1].split("x")]):
        runs[f.stem.rsplit("_", 1)[1].replace("x", " × ")] = read_rows(f)
    first = next(iter(runs.values()))
    out = [f"{run_line(first[0])}: `bench_ab`, median of alternating repetitions, one process per policy "
           "(base = the policy named, this = 256 × 8); each policy's time ÷ 256 × 8's time in its process, "
           "**bold**: the fastest policy of an image where it is faster than 256 × 8", "",
           "| shape | type | 256 × 8 ÷ copy | " + " | ".join(runs) + " |",
           "|---|---|---:|" + "---:|" * len(runs)]
    for i, r in enumerate(first):
        ratios = {name: float(rows[i]["base_ms"]) / float(rows[i]["this_ms"]) for name, rows in runs.items()}
        if any(rows[i]["rows"] != r["rows"] or rows[i]["cols"] != r["cols"] for rows in runs.values()):
            raise ValueError(f"{stem}: the runs' rows differ at row {i + 1}")
        per_copy = [float(rows[i]["this_per_copy"]) for rows in runs.values()]
        best = min(ratios.values())
        cells = [f"**{v:.3f}**" if v == best and v < 1.0 else f"{v:.3f}" for v in ratios.values()]
        out.append(f"| {batch_shape(r)} | {type_label(r['type'])} | {min(per_copy):.2f}–{max(per_copy):.2f} | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


def word_lanes_row(r):
    """A row of bench_ab that CUB's u8 -> i32 word lanes take (3 rows or columns, whole words), not the chunks."""
    return (r["type"] == "u8i32" and r["batch"] == "1" and "3" in (r["rows"], r["cols"])
            and max(int(r["rows"]), int(r["cols"])) % 4 == 0)


def every_row_ab_table(path, base, this):
    """An A/B whose two builds differ on every row (the thin kernel's variants)."""
    return ab_table(path, base, this, lambda r: True, bold="every row")


def padded_tall_row(r):
    """A row of bench_ab whose thin chunks pad their segments: one tall image of even K."""
    return r["batch"] == "1" and int(r["rows"]) > int(r["cols"]) and int(r["cols"]) % 2 == 0


def targets_2d_row(r):
    """A row of bench_ab --set targets that runs the 2-D kernel (33x4000000 and 4000000x3 are thin)."""
    return r["rows"] not in ("33", "4000000")


def large_tiles_odd_row(r):
    """A row of bench_ab --set odd that takes the 256-thread tiles: all but one 1081x1921 image."""
    return not (r["rows"] == "1081" and r["batch"] == "1")


def register_rows_ab_table(path, base, this):
    """An A/B on bench_ab --set odd of two builds whose f32 and i32 register rows differ in the
    256-thread tiles; f64, u8 -> i32 and one 1081x1921 image run the same code in both."""
    return ab_table(path, base, this, lambda r: large_tiles_odd_row(r) and r["type"] in ("f32", "i32"),
                    bold="f32 and i32 in the 256-thread tiles, whose kernels differ (f64, u8 → i32 and one "
                         "1081x1921 image run the same code in both builds)")


def lanes_odd_ab_table(path, base, this):
    """An A/B of two builds of the lanes path on bench_ab --set odd: the rows in the 256-thread
    tiles differ, one 1081x1921 image runs the small tiles' element path in both."""
    return ab_table(path, base, this, large_tiles_odd_row,
                    bold="the rows that take the 256-thread tiles, lane by lane (one 1081x1921 image takes "
                         "the small tiles, element by element: the same code in both builds)")


def u8_lanes_odd_ab_table(path, base, this):
    """An A/B of two builds of the lanes path's u8 copy on bench_ab --set odd: only u8 → i32 in the
    256-thread tiles differs."""
    return ab_table(path, base, this, lambda r: large_tiles_odd_row(r) and r["type"] == "u8i32",
                    bold="u8 → i32 in the 256-thread tiles, whose kernels differ (the other types and one "
                         "1081x1921 image run the same code in both builds)")


def taller_tiles_row(r):
    """A row of bench_ab that takes 510fc04's taller tiles: f32, i32 and u8 -> i32 with vector
    accesses in the 256-thread tiles (not f64, not the thin shapes, not one 1920x1080 image)."""
    return targets_2d_row(r) and r["type"] in ("f32", "i32", "u8i32") and not one_1080p_image(r)


def taller_tiles_ab_table(path, differs=taller_tiles_row,
                          bold="the rows that take the taller tiles (f64, the thin shapes and one 1920×1080 "
                               "image run the same kernels in both builds)"):
    """An A/B of 510fc04's taller tiles for rows on whole 16-byte pieces against 2f45cb9's 32-row tiles."""
    return ab_table(path, "the kernel of 2f45cb9 (32-row tiles: f32 and i32 16 + 16, u8 → i32 4 + 28)",
                    "the kernel of 510fc04 (rows on whole 16-byte pieces: f32 and i32 16 + 24 rows, u8 → i32 "
                    "4 + 32; f64 and the other rows keep theirs)", differs, bold=bold)


AGGREGATES_BASE = "the kernel of 9e923eb (every launch looks back)"
AGGREGATES_THIS = ("the kernel of df61d03 (a launch of one round of small tiles, at most 32 × 64 tiles an image, "
                   "adds up the aggregates of the tiles left and above)")


SIX_SUMS_BASE = "the kernel of 70ab197 (sum_aggregates: 4 column sums in flight a thread)"
SIX_SUMS_THIS = "the kernel of bfbb292 (sum_aggregates: 6 column sums in flight a thread; 32-row small tiles)"
ROWS34_THIS = ("the kernel of c78b4c0 (the small tiles of f32, i32 and u8 → i32 34 rows tall: 16 + 18 and "
               "4 + 30)")
ROWS36_THIS = "small tiles of f32, i32 and u8 → i32 36 rows tall (16 + 20 and 4 + 32; not kept)"
GROUPS_BASE = ("the library of 8782bc6 (the kernels of c78b4c0: sum_aggregates adds the tiles above one by one, "
               "6 column sums in flight)")
GROUPS_THIS = ("the kernel of 6b63944 (sum_aggregates: images of more than 32 tile rows add the tiles above in "
               "groups of 8 tile rows; 4 column sums in flight)")
GROUPS_EVERY_HEIGHT = "groups of 8 tile rows at every image height, 4 column sums in flight (not kept)"
ROWS_SHORT_BASE = "the kernels of 070cc11 (f32 small tiles of 34 rows, 16 + 18)"
ROWS17_THIS = "f32 small tiles of 17 rows, 8 + 9, for every image that takes the small tiles (not kept)"
SHORT_BASE = "the kernels of e8c01a8 (those of 070cc11)"
SHORT_THIS = "f32 short tiles of 17 rows, 8 + 9, for one image of at most 64 of them in one round"
SHORT_INT_BASE = "the kernels of bbdf075 (f32's short tiles)"
SHORT_INT_THIS = ("i32 and u8 → i32 short tiles of 17 rows, 8 + 9 and 4 + 13, for one image of at most 64 of "
                  "them in one round")
SHORT_PAIRS_BASE = "the kernels of 18742d3 (the short tiles of f32, i32 and u8 → i32)"
SHORT_PAIRS_THIS = ("short tiles of 17 rows for u8 → f32 (4 + 13 × 6, 512 columns) and for f64, u16 → f64 and "
                    "f32 → f64 (8 + 9 × 5, 256 columns), for one image of at most 64 of them in one round")
ROUNDS_BASE = "the kernels of 51bc593 (a launch of exactly two rounds of tiles takes a block per two tiles)"
ROUNDS_THIS = ("a block per two tiles only where the second round is at least half full; a smaller second round "
               "runs on every resident block")
EVEN_BASE = "the kernels of 51bc593 with every launch on every resident block (not kept)"
EVEN_THIS = "the kernels of 51bc593 (a launch of exactly two rounds of tiles takes a block per two tiles)"
ROWS12_THIS = "f32 small tiles of 12 rows, 4 + 8, and aggregates_tiles_y 96 (not kept)"
ROW_CARRIES_BASE = "the kernel of 6b63944 (sum_aggregates: the row carries on warp 0, one load at a time)"
ROW_CARRIES_THIS = ("the kernel of 6b2e145 (sum_aggregates: the row carries a thread a row, 4 loads in flight; "
                    "the corner on the last warp, 2 in flight)")


def small_tiles_row(r):
    """A row of bench_ab --set images whose tiles the small tiles' rows change: every type but f64,
    whose small tiles keep 32 rows (every row of that set takes the small tiles)."""
    return r["type"] != "f64"


def adds_aggregates_row(r):
    """A row of bench_ab --set images that adds up aggregates: every row but one 3840×2160 f64 image,
    which takes the 256-thread tiles."""
    return not (r["rows"] == "2160" and r["type"] == "f64")


def aggregates_ab_table(path, base, this):
    """An A/B of bench_ab --set images whose builds differ in the launches that add up aggregates."""
    return ab_table(path, base, this, adds_aggregates_row,
                    bold="the rows that add up aggregates (all but 3840×2160 f64, which takes the "
                         "256-thread tiles)")


def aggregates_ab_tables(name, base, this, stem):
    """The TABLES entries of an A/B whose builds differ in the launches that add up aggregates: its
    --set images run (docs/data/STEM_images_ab_h200.csv) and its --set targets run (STEM_targets_...)."""
    return [(f"{name} AB TABLE", lambda p: aggregates_ab_table(p, base, this), f"{stem}_images_ab_h200.csv"),
            (f"{name} TARGETS AB TABLE", lambda p: one_round_targets_ab_table(p, base, this),
             f"{stem}_targets_ab_h200.csv")]


# Per type, as (rows, columns, blocks an SM) (lib/src/lookback_kernel.cuh): the short tiles
# (ShortTileShape), the small ones (SmallTileShape) and the tall small ones (TallSmallTileShape).
SHORT_TILES = {"f32": (17, 512, 4), "i32": (17, 512, 4), "u8i32": (17, 512, 6), "u8f32": (17, 512, 6),
               "f64": (17, 256, 5), "u16f64": (17, 256, 5), "f32f64": (17, 256, 5)}
SMALL_TILES = {"f32": (34, 512, 4), "i32": (34, 512, 4), "u8i32": (34, 512, 6), "u8f32": (34, 512, 6),
               "f64": (32, 256, 5), "u16f64": (32, 256, 5), "f32f64": (32, 256, 5)}
TALL_SMALL_TILES = {"f32": (38, 512, 4), "i32": (38, 512, 4)}
# The 256-thread tiles of one image's sums whose rows start on whole pieces, as (rows, columns, blocks
# resident on 132 SMs) per type (lib/src/lookback_kernel.cuh, TileShape).
LARGE_TILES = {"f32": (40, 1024, 264), "i32": (40, 1024, 264), "u8i32": (36, 1024, 396), "u8f32": (36, 1024, 396),
               "f64": (32, 512, 264), "u16f64": (32, 512, 264), "f32f64": (32, 512, 264)}
F64_ACCUMULATOR = ("f64", "u16f64", "f32f64")  # 128 threads of 2 sums: 256 columns a tile


# Rows that do not start on a whole piece take 32-row tiles of 256 threads (LanesTileShape); the
# f64 accumulator's are its TileShape.
LANES_TILES = {"f32": (32, 1024, 264), "i32": (32, 1024, 264), "u8i32": (32, 1024, 396), "u8f32": (32, 1024, 396),
               "f64": (32, 512, 264), "u16f64": (32, 512, 264), "f32f64": (32, 512, 264)}
# Bytes per element of a bench_ab type: (input, accumulator and output).
TYPE_BYTES = {"f32": (4, 4), "i32": (4, 4), "u8i32": (1, 4), "u8f32": (1, 4), "f64": (8, 8), "u16f64": (2, 8),
              "f32f64": (4, 8)}


def align_up(x, a):
    return -(-x // a) * a


def tiles_scratch_bytes(tiles, tile, acc_bytes):
    """The 2-D records of one image of `tiles` tiles of tile = (R, C, ...) (satlib.cu, layout_for):
    the tile states after a 32-word header, then seven arrays, each 256-byte aligned."""
    arrays = [tiles * tile[0]] * 2 + [tiles * tile[1]] * 2 + [tiles] * 3
    return (32 + tiles) * 4 + sum(align_up(n * acc_bytes, 256) for n in arrays)


def thin_wide_scratch_bytes(k, cols, in_bytes, acc_bytes):
    """The thin kernel's scratch for one wide image of k rows (sat_thin.cu, plan_sized with
    Lines::nearest and scratch_for): chunks of 256 M columns, M about 64 KB of accumulators a chunk,
    made odd (M = 2 stays 2 where the input is as wide as the accumulator)."""
    m = max(1, int((65536 // acc_bytes) / (256 * k) + 0.5))
    if m % 2 == 0 and not (m == 2 and in_bytes == acc_bytes):
        m = 3 if m == 2 else m - 1
    chunks = -(-cols // (256 * m))
    return align_up((32 + chunks) * 4, 256) + 2 * chunks * k * acc_bytes


def large_tiles_of(r):
    """The 256-thread tiles of a bench_ab row: LARGE_TILES where its rows start on whole 16-byte
    pieces (bench_ab's pitch is the width: a multiple of the output's vector), else LANES_TILES."""
    vector = 16 // TYPE_BYTES[r["type"]][1]
    return LARGE_TILES[r["type"]] if int(r["cols"]) % vector == 0 else LANES_TILES[r["type"]]


def wide_in_tiles(r, tile):
    """A bench_ab row's wide thin image within the bounds of the 2-D tiles tile = (R, C, ...)
    (satlib.cu, wide_in_tiles): 24 to 64 rows, fewer than its columns, its tile rows at least 60 %
    full, and their records with the thin kernel's scratch within 10 % of the output."""
    k, cols, t = int(r["rows"]), int(r["cols"]), r["type"]
    if not 24 <= k <= 64 or k >= cols:
        return False
    tiles_y, tiles_x = tile_grid(r, tile)
    if 10 * k < 6 * tile[0] * tiles_y:
        return False
    in_bytes, acc_bytes = TYPE_BYTES[t]
    scratch = (tiles_scratch_bytes(tiles_y * tiles_x, tile, acc_bytes) +
               thin_wide_scratch_bytes(k, cols, in_bytes, acc_bytes))
    return 10 * scratch <= k * cols * acc_bytes


def takes_wide_tiles(r):
    """A bench_ab row that takes the 2-D tiles although thin (wide_in_tiles) in the tiles its call
    takes (large_tiles_of; fewer 256-thread tiles than a round take the small ones, as the f64
    accumulator's batches do). The short and tall small tiles are left out: no wide thin image of
    24 rows or more takes them (more than 32 tile columns, or scratch over 10 %), as `--set wide`'s
    shapes do not."""
    tile = large_tiles_of(r)
    tiles_y, tiles_x = tile_grid(r, tile)
    batch, t = int(r["batch"]), r["type"]
    if tiles_y * tiles_x * batch < tile[2] or (batch > 1 and t in F64_ACCUMULATOR):
        tile = SMALL_TILES[t]
    return wide_in_tiles(r, tile)


WIDE_BASE = "the kernels of 4065fea (every thin shape in the chunks)"

# The tiles for wide thin images of 33 or 34 rows, as (rows, columns, blocks resident on 132 SMs)
# (lib/src/lookback_kernel.cuh, WideThinTileShape): the f64 accumulator's, and f32's, i32's and
# u8 -> i32's for rows that do not start on whole pieces (satlib.cu, wide_thin_serves).
WIDE_THIN_TILES = {**{t: (34, 512, 264) for t in F64_ACCUMULATOR},
                   "f32": (34, 1024, 264), "i32": (34, 1024, 264), "u8i32": (34, 1024, 396)}


def takes_wide_thin_tiles(r, types=tuple(WIDE_THIN_TILES)):
    """A bench_ab row of one of `types` in the 34-row tiles (satlib.cu, wide_thin_tiles): one image
    whose 34-row tiles make fewer tile rows than the 256-thread tiles of its access (large_tiles_of),
    at least a round of them, within the bounds of wide_in_tiles."""
    t = r["type"]
    if t not in types or int(r["batch"]) != 1:
        return False
    tile = WIDE_THIN_TILES[t]
    tiles_y, tiles_x = tile_grid(r, tile)
    return (tiles_y < -(-int(r["rows"]) // large_tiles_of(r)[0]) and tiles_y * tiles_x >= tile[2] and
            wide_in_tiles(r, tile))


def takes_f64_wide_thin_tiles(r):
    """takes_wide_thin_tiles for the f64 accumulator alone: the rows whose tiles differ in the WIDE
    F64 AB TABLE's and WIDE F64 SHAPE AB TABLE's builds."""
    return takes_wide_thin_tiles(r, F64_ACCUMULATOR)


def takes_small_thin_blocks(r, max_rows):
    """A bench_ab row in the thin kernel's blocks of 128 threads (sat_thin.cu's plan_for, in the
    library from d4bd298's A/B build to 391944e) of a build that takes them up to max_rows rows: one wide f32 or i32 image in the chunks, not 2 or
    3 rows in element lanes (narrower than 524,288 columns) or 2 rows of whole groups in group
    lanes (sat_thin.cuh, rows_in_lanes and rows_in_groups)."""
    rows, cols = int(r["rows"]), int(r["cols"])
    if r["type"] not in ("f32", "i32") or int(r["batch"]) != 1 or not 2 <= rows < cols or rows > max_rows:
        return False
    return not (rows <= 3 and cols < 524288) and not (rows == 2 and cols % 4 == 0)


SMALL_BLOCKS_BASE = "the kernels of d4bd298 (blocks of 256 threads everywhere)"


def variants_table(path, reference, caption):
    """bench_ab runs of several variants, each the base against one reference build (this), one CSV
    with a `variant` column: per shape the reference's time ÷ copy (the median over the runs) and
    each variant's time ÷ the reference's in its own run (above 1: slower)."""
    rows = read_rows(path)
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    keys = list(dict.fromkeys((r["batch"], r["rows"], r["cols"], r["type"]) for r in rows))
    cell = {(r["variant"], (r["batch"], r["rows"], r["cols"], r["type"])): r for r in rows}
    out = [f"{run_line(rows[0])}: `bench_ab`, median of alternating repetitions; {caption}", "",
           f"| shape | type | {reference} ÷ copy | " + " | ".join(variants) + " | check |",
           "|---|---|---:|" + "---:|" * len(variants) + "---|"]
    for key in keys:
        runs = [cell[(v, key)] for v in variants if (v, key) in cell]
        reference_per_copy = statistics.median(float(r["this_per_copy"]) for r in runs)
        ratios = [f'{float(cell[(v, key)]["base_ms"]) / float(cell[(v, key)]["this_ms"]):.3f}' if (v, key) in cell
                  else "" for v in variants]
        check = "PASS" if all(r["check"] == "PASS" for r in runs) else "FAIL"
        out.append(f"| {batch_shape(runs[0])} | {type_label(key[3])} | {reference_per_copy:.3f} | " + " | ".join(ratios) +
                   f" | {check} |")
    return "\n".join(out)


THIN_VARIANTS_SIDES = (
    "each variant (the base) against the thin kernel of 391944e (this), both in one program, built from the "
    "variant's source with its switch set and with it at 391944e's value; a variant's column is its time ÷ "
    "this in its run, the 391944e ÷ copy column the median of this over the runs")
THIN_VARIANTS_FEW_ROWS_CAPTION = (
    THIN_VARIANTS_SIDES + ". 391944e: blocks of 128 threads, 7 an SM, for these images; one chunk a thread a "
    "look-back round. The first variant is the plan and kernel of 057e2b4 (the library's). The two warp-0 "
    "variants' rows come from bench_ab's printed table (ms to 4 decimals)")
THIN_VARIANTS_THIN_CAPTION = (
    THIN_VARIANTS_SIDES + ". 391944e: one chunk a thread a look-back round; u8 → i32 chunks of M = 3 at "
    "K = 33 (none kept)")


def wide_all_ab_table(path):
    """An A/B of a build that took the 2-D tiles for every wide thin image of 17 rows or more."""
    return ab_table(path, WIDE_BASE,
                    "every wide thin image of 17 to 64 rows in the 2-D tiles (not kept as such)",
                    lambda r: 17 <= int(r["rows"]) <= 64 and int(r["rows"]) < int(r["cols"]),
                    bold="the rows that take the 2-D tiles in this build (every row)")


def tile_grid(r, tile):
    """A bench_ab row's image cut into tiles of tile = (rows, columns, ...): (tile rows, tile columns)."""
    return -(-int(r["rows"]) // tile[0]), -(-int(r["cols"]) // tile[1])


def one_round_adding_up(r, tile, max_tiles_y=128):
    """Whether a bench_ab row's image in tiles of tile = (rows, columns, blocks an SM) is at most
    max_tiles_y x 32 of them and one round on 132 SMs (satlib.cu, one_round_adding_up)."""
    tiles_y, tiles_x = tile_grid(r, tile)
    return tiles_y <= max_tiles_y and tiles_x <= 32 and tiles_x * tiles_y <= 132 * tile[2]


def takes_short_tiles(r, types=("f32",), max_tiles_y=64):
    """A row of bench_ab that takes the short tiles (17 x 512, the f64 accumulator's 17 x 256) of
    one of `types`: one image of at most max_tiles_y x 32 of them (64 in 9267540 and earlier, 128
    from 8afe23f), and of one round of them on 132 SMs (satlib.cu, short_tiles)."""
    return r["type"] in types and r["batch"] == "1" and one_round_adding_up(r, SHORT_TILES[r["type"]], max_tiles_y)


def takes_tall_small_tiles(r):
    """A row of bench_ab that takes the tall small tiles (38 x 512, f32 and i32): one image that is
    one round adding up aggregates in them and not in its small tiles (satlib.cu, tall_small_tiles)."""
    return (r["type"] in TALL_SMALL_TILES and r["batch"] == "1" and
            not one_round_adding_up(r, SMALL_TILES[r["type"]]) and one_round_adding_up(r, TALL_SMALL_TILES[r["type"]]))


def f64_large_tiles_image(r):
    """A row of bench_ab that is one image of the f64 accumulator of at least a round of 256-thread
    tiles, which took them in the builds of that A/B (ea94972: no small tiles past a round)."""
    if r["type"] not in F64_ACCUMULATOR or r["batch"] != "1":
        return False
    tiles_y, tiles_x = tile_grid(r, LARGE_TILES[r["type"]])
    return tiles_y * tiles_x >= LARGE_TILES[r["type"]][2]


def small_tiles_in_two_rounds(r):
    """A row of bench_ab whose kernels differ in the build of LAB9_SMALL_TILE_ROUNDS 2: a call of one
    to two rounds of 256-thread tiles (over its batch, rows on whole pieces) that does not take the
    tall small tiles in both builds."""
    tiles_y, tiles_x = tile_grid(r, LARGE_TILES[r["type"]])
    resident = LARGE_TILES[r["type"]][2]
    return resident <= tiles_y * tiles_x * int(r["batch"]) < 2 * resident and not takes_tall_small_tiles(r)


def small_tiles_past_a_round(r, types=tuple(TALL_SMALL_TILES)):
    """A row of bench_ab that is one image of one of `types` of at least a round of 256-thread tiles
    (f32 and i32: 40 rows where its rows start on whole pieces, bench_ab's pitch being the width, 32
    rows otherwise; the f64 accumulator 32 either way) and one round of small tiles adding up
    aggregates (satlib.cu, small_tiles_past_a_round; one round of short tiles is fewer than a round
    of 256-thread ones)."""
    if r["type"] not in types or r["batch"] != "1":
        return False
    tile = large_tiles_of(r)
    tiles_y, tiles_x = tile_grid(r, tile)
    return tiles_y * tiles_x >= tile[2] and one_round_adding_up(r, SMALL_TILES[r["type"]])


def one_round_small_ab_table(path, this=None, types=tuple(TALL_SMALL_TILES)):
    """An A/B of one round of small tiles where the 256-thread ones are a round or more, for `types`."""
    return ab_table(path, ONE_ROUND_SMALL_BASE, this or ONE_ROUND_SMALL_THIS,
                    lambda r: small_tiles_past_a_round(r, types),
                    bold="the rows that take the small tiles only in this build")


def takes_small_tiles_38(r):
    """A row of bench_ab whose kernels differ in the build of 38-row small tiles for f32 and i32:
    an f32 or i32 call of fewer 256-thread tiles than a round of them (over its batch) that does not
    take the short tiles, or one image that takes the tall small tiles."""
    if r["type"] not in TALL_SMALL_TILES or takes_short_tiles(r, (r["type"],), 128):
        return False
    tiles_y, tiles_x = tile_grid(r, LARGE_TILES[r["type"]])
    return tiles_y * tiles_x * int(r["batch"]) < LARGE_TILES[r["type"]][2] or takes_tall_small_tiles(r)


SHORT_128_BASE = "the kernels of 9267540 (short tiles for images of at most 64 of them tall)"
SHORT_128_THIS = "short tiles for images of at most 128 of them tall"
SMALL_128_BASE = "the kernels of 8afe23f (small tiles add up aggregates in images of at most 64 of them tall)"
SMALL_128_THIS = "small tiles add up aggregates in images of at most 128 of them tall"


def small_tiles_rows_65_to_128(r):
    """A row of bench_ab --set images that adds up aggregates in one round of 65 to 128 small tile
    rows: one image with fewer 256-thread tiles than a round of them (satlib.cu, small_tiles), too
    many short tiles for them (short_tiles), and one round of small tiles at most 32 wide."""
    if r["batch"] != "1" or takes_short_tiles(r, tuple(SHORT_TILES), 128):
        return False
    large_y, large_x = tile_grid(r, LARGE_TILES[r["type"]])
    if large_y * large_x >= LARGE_TILES[r["type"]][2]:
        return False
    small = SMALL_TILES[r["type"]]
    return one_round_adding_up(r, small) and not one_round_adding_up(r, small, 64)


def short_tiles_128_ab_table(path):
    """An A/B of the short tiles to 128 tile rows against 64."""
    types = tuple(SHORT_TILES)
    return ab_table(path, SHORT_128_BASE, SHORT_128_THIS,
                    lambda r: takes_short_tiles(r, types, 128) and not takes_short_tiles(r, types, 64),
                    bold="the images of 65 to 128 short tile rows, which take the short tiles only in this build")


def short_tiles_ab_table(path):
    """An A/B of f32's short tiles against the kernels before them."""
    return ab_table(path, SHORT_BASE, SHORT_THIS, takes_short_tiles, bold="the rows that take the short tiles")


def int_short_tiles_ab_table(path):
    """An A/B of i32's and u8 → i32's short tiles against the kernels of f32's alone."""
    return ab_table(path, SHORT_INT_BASE, SHORT_INT_THIS, lambda r: takes_short_tiles(r, ("i32", "u8i32")),
                    bold="the rows that take this build's short tiles")


def pairs_short_tiles_ab_table(path):
    """An A/B of the short tiles of u8 → f32 and of the f64 accumulator against the kernels before them."""
    return ab_table(path, SHORT_PAIRS_BASE, SHORT_PAIRS_THIS,
                    lambda r: takes_short_tiles(r, ("u8f32",) + F64_ACCUMULATOR),
                    bold="the rows that take this build's short tiles")


def second_round(r):
    """The part of a round of blocks that a bench_ab row's second round of 256-thread tiles fills on
    132 SMs, or None where its tiles are not exactly two rounds (one image only)."""
    if r["batch"] != "1" or r["type"] not in LARGE_TILES:
        return None
    tiles_y, tiles_x = tile_grid(r, LARGE_TILES[r["type"]])
    tiles, resident = tiles_y * tiles_x, LARGE_TILES[r["type"]][2]
    return (tiles - resident) / resident if resident < tiles <= 2 * resident else None


def rounds_ab_table(path):
    """An A/B of two rounds run on every resident block where the second is less than half full
    against two rounds always evened out."""
    return ab_table(path, ROUNDS_BASE, ROUNDS_THIS, lambda r: (second_round(r) or 1) < 0.5,
                    bold="the rows of two rounds whose second is less than half full (132 SMs), whose grids differ")


ROUNDS_U8_BASE = "the kernels of 9267540 (two rounds evened out where the second is at least half full)"
ROUNDS_U8_THIS = "the same, but u8 inputs run on every resident block at any fill"


def rounds_u8_ab_table(path):
    """An A/B of u8 inputs never evened out against evened out from half a second round."""
    return ab_table(path, ROUNDS_U8_BASE, ROUNDS_U8_THIS,
                    lambda r: r["type"] == "u8i32" and (second_round(r) or 0) >= 0.5,
                    bold="u8 → i32 with a second round at least half full (132 SMs), whose grids differ")


AHEAD_BASE = "the kernels of 9267540"
TALL_BASE = "the kernels of 143cb4c"
ONE_ROUND_SMALL_BASE = "the kernels of 094abac"
ONE_ROUND_SMALL_F64_THIS = ("one image of sums of f32, i32 or the f64 accumulator that is one round of small tiles "
                            "adding up aggregates takes them where its 256-thread tiles are a round or more")
ONE_ROUND_SMALL_THIS = ("one f32 or i32 image of sums that is one round of small tiles adding up aggregates takes them "
                        "where its 256-thread tiles are a round or more")
TALL_THIS = ("the kernels of ea94972: tall small tiles of 16 + 22 rows for one f32 or i32 image that is one round "
             "of them adding up aggregates and not one round of its small tiles")
F64_40_BASE = "the kernels of ea94972"
SMALL_TWO_ROUNDS_THIS = ("the small tiles (or the short or tall small ones) for calls of fewer than two rounds of "
                         "256-thread tiles (`LAB9_SMALL_TILE_ROUNDS` 2; not kept)")
F64_40_THIS = "the f64 accumulator's 256-thread tiles of 16 + 24 rows where rows start on whole pieces (not kept)"
SMALL_38_THIS = ("f32 and i32 small tiles of 16 + 22 rows in place of 16 + 18, which one image that is one round of "
                 "them adding up aggregates, and not of 34-row tiles, takes too (not kept)")
AHEAD_THIS = ("an L2 prefetch of the tile of ticket + gridDim.x (its first rows, as the next ticket's) "
              "while the look-backs wait (not kept)")
EVICT_FIRST_THIS = ("the 256-thread tiles of f32, f64 and i32 sums loaded with an L2 evict-first policy "
                    "(`createpolicy`, `ld.global.nc.L2::cache_hint`, `cp.async.cg ... L2::cache_hint`; not kept)")


def targets_row_of_rounds(r):
    """A 2-D row of bench_ab --set targets or --set squares of more than one round of tiles: all but
    the thin rows and one 1920×1080 image (one round of short tiles), the only one-round 2-D shape
    of those sets."""
    return targets_2d_row(r) and not (r["batch"] == "1" and r["rows"] == "1080")


def even_rounds_ab_table(path):
    """An A/B of two rounds always evened out against every resident block."""
    return ab_table(path, EVEN_BASE, EVEN_THIS, lambda r: second_round(r) is not None,
                    bold="the rows of exactly two rounds of tiles on 132 SMs, whose grids differ")


def f32_small_tiles_ab_table(path, this):
    """An A/B of f32 small tiles of other rows (`this`) against 070cc11's 34-row ones."""
    return ab_table(path, ROWS_SHORT_BASE, this, lambda r: r["type"] == "f32", bold="f32, whose small tiles change")


def one_1080p_image(r):
    """A row of bench_ab of one 1920×1080 image, which takes the small tiles."""
    return r["rows"] == "1080" and r["batch"] == "1"


def one_round_targets_ab_table(path, base, this):
    """An A/B of bench_ab --set targets whose builds differ only in launches of one round of small tiles."""
    return ab_table(path, base, this, one_1080p_image,
                    bold="one 1920×1080 image, the targets' only launch of one round of small tiles (the other "
                         "rows run the same kernels in both builds)")


def thin_m2_ab_table(path):
    """The A/B of M = 2 against M = 3 at K = 33 (docs/thin.md), one GPU's run."""
    return ab_table(path, "M = 3 at K = 33 (99 KB chunks, 2 blocks per SM)",
                    "the shipped plan (f32 and i32 at K = 33: M = 2, 66 KB chunks, 3 blocks per SM)",
                    lambda r: "33" in (r["rows"], r["cols"]) and r["type"] in ("f32", "i32"),
                    bold="the rows whose plans differ")


def thin_cursor_ab_table(path):
    """The A/B of FlatCursor against a division per group (docs/thin.md), one GPU's run."""
    return every_row_ab_table(path, "a division per 16-byte group in the load and write loops",
                              "the shipped loops (FlatCursor: one division per thread)")


def thin_lines_ab_table(path):
    """The A/B of steps 1 and 4 with M at compile time against M at run time (docs/thin.md), one
    GPU's run; the K = 3 rows (M = 21) take the run-time loop in both builds."""
    return ab_table(path, "M at run time in steps 1 and 4 (0eeb5c5)",
                    "the kernel of 8aac9b0 (M = 1, 2, 3 at compile time)",
                    lambda r: "33" in (r["rows"], r["cols"]),
                    bold="the K = 33 rows, whose M (1, 2 or 3) is a compile-time constant in this build")


def thin_walk_ab_table(path):
    """The A/B of step 2 by walking lanes in tall chunks of K >= 8 against warp scans for every
    chunk (docs/thin.md); only the tall K = 33 rows take the walk."""
    return ab_table(path, "warp scans in step 2 for every chunk (8585f02)",
                    "the kernel of 15737d7 (tall chunks of K ≥ 8: lanes walk the warp's last lines)",
                    lambda r: r["cols"] == "33" and r["rows"] != "33",
                    bold="the tall K = 33 rows, the only ones that take the walk")


def chunk_width(r):
    """K of a bench_ab row of a thin shape: its short side."""
    return min(int(r["rows"]), int(r["cols"]))


def four_piece_stores(r):
    """Whether a bench_ab row's u8 chunks store whole groups of four 16-byte pieces in the kernels of
    b992ac3: a wide chunk whose rows are whole 16-byte groups, or a tall one of odd K (even K pads
    its segments). bench_ab's buffers are packed and 16-byte aligned, so the row length decides."""
    wide = int(r["rows"]) < int(r["cols"])
    return r["type"].startswith("u8") and (int(r["cols"]) % 16 == 0 if wide else chunk_width(r) % 2 == 1)


def thin_rotate_ab_table(path):
    """The A/B of rotated four-piece stores from K = 8 up against plain stores (docs/thin.md)."""
    return ab_table(path, "the kernel of 15737d7 (plain stores)",
                    "the kernel of b992ac3 (four pieces stored rotated from K = 8 up)",
                    lambda r: four_piece_stores(r) and chunk_width(r) >= 8,
                    bold="the rows that store rotated pieces in this build")


def thin_rotate_vs_all_table(path):
    """The A/B of rotated stores from K = 8 up against rotated stores at every K (docs/thin.md)."""
    return ab_table(path, "four pieces stored rotated at every K (not kept)",
                    "the kernel of b992ac3 (rotated from K = 8 up)",
                    lambda r: four_piece_stores(r) and chunk_width(r) < 8,
                    bold="the rows that store rotated pieces in the base only")


def kernel_2d_ab_table(path, this, base):
    """An A/B of two builds of the 2-D kernel (`base` and `this` name them, each by its commit or
    as a variant of one) on bench_ab's --set targets, whose two thin rows run the same kernel in
    both builds."""
    return ab_table(path, base, this, targets_2d_row,
                    bold="the 2-D rows, whose kernels differ (33x4000000 and 4000000x3 are thin)")


def edge_copy_ab_table(path):
    """The 2-D kernel's copy of the piece that the matrix edge cuts, element by element: bench_ab
    --set targets runs of two builds against the kernel of f892618 (a cp.async of fewer source
    bytes), two runs each, one CSV with the build and the run in front of each bench_ab row."""
    rows = read_rows(path)
    builds = list(dict.fromkeys(r["build"] for r in rows))
    runs = sorted({r["run"] for r in rows})
    cases = list(dict.fromkeys((r["batch"], r["rows"], r["cols"], r["type"]) for r in rows))
    by = {(r["build"], r["run"], r["batch"], r["rows"], r["cols"], r["type"]): r for r in rows}
    names = {"hoisted": "c213807", "in_loop": "208332b"}
    out = [f"{run_line(rows[0])}: `bench_ab --set targets --reps 15`, seeds 41 and 42; each cell: this ÷ base, "
           "base = the kernel of f892618 (a cp.async of fewer source bytes at the edge), this = the "
           "column's build, one cell per run; base ÷ copy from the first build's first run; **bold**: "
           "the 2-D rows, whose kernels differ (33x4000000 and 4000000x3 are thin)", "",
           "| shape | type | base ÷ copy | " + " | ".join(f"{names[b]}, run {n}" for b in builds for n in runs) + " | check |",
           "|---|---|---:|" + "---:|" * (len(builds) * len(runs)) + "---|"]
    for case in cases:
        cells_of = [by[(b, n) + case] for b in builds for n in runs]
        first = cells_of[0]
        checks = {r["check"] for r in cells_of}
        cells = [batch_shape(first), type_label(first["type"]), f'{float(first["base_per_copy"]):.3f}'] + \
                [f'{float(r["this_per_base"]):.3f}' for r in cells_of] + ["PASS" if checks == {"PASS"} else "FAIL"]
        if targets_2d_row(first):
            cells = [f"**{c}**" for c in cells]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def prefetch_budget_table(path):
    """The in-loop prefetch's budget swept on one GPU: bench_ab runs of the shipped 24 MiB (this)
    against builds of other LAB9_PREFETCH_MB (base), two seeds each, one CSV with the base's
    budget and the seed in front of each bench_ab row."""
    rows = read_rows(path)
    budgets = sorted({int(r["base_prefetch_mib"]) for r in rows})
    seeds = sorted({r["seed"] for r in rows})
    cases = list(dict.fromkeys((r["batch"], r["rows"], r["cols"], r["type"]) for r in rows))
    by = {(int(r["base_prefetch_mib"]), r["seed"], r["batch"], r["rows"], r["cols"], r["type"]): r for r in rows}
    out = [f"{run_line(rows[0])}: `bench_ab --set targets --reps 11`, seeds {' and '.join(seeds)}; "
           "each cell: the time of the shipped 24 MiB ÷ the time of a build with the column's budget, "
           "one cell per seed; **bold**: the f32, f64 and i32 2-D rows of more than one round of tiles, "
           "whose prefetch inside the tile loop takes fewer or more rows with the budget (u8 → i32 "
           "prefetches 31 of its 32 rows at 12 MiB and all 32 from 16 MiB; one 1920×1080 image is one "
           "round; 33x4000000 and 4000000x3 are thin)", "",
           "| shape | type | " + " | ".join(f"24 ÷ {mb} MiB" for mb in budgets) + " | checks |",
           "|---|---|" + "---:|" * len(budgets) + "---|"]
    for batch, n_rows, n_cols, t in cases:
        got = [[by[(mb, seed, batch, n_rows, n_cols, t)] for seed in seeds] for mb in budgets]
        cells = [batch_shape(got[0][0]), type_label(t)]
        cells += [", ".join(f'{float(r["this_per_base"]):.3f}' for r in runs) for runs in got]
        cells.append("PASS" if all(r["check"] == "PASS" for runs in got for r in runs) else "FAIL")
        if targets_2d_row({"rows": n_rows}) and not (batch == "1" and n_rows == "1080") and t != "u8i32":
            cells = [f"**{c}**" for c in cells]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def shape128_ab_table(path, shape):
    """The A/B of f32's large tiles of 128 threads (`shape`, the base, not kept) against the
    256-thread ones of 32 rows (docs/tiles.md), one GPU's run: the f32 rows that take large tiles
    differ; a single 1920×1080 image takes the same small tiles in both builds."""
    return ab_table(path, f"f32's large tiles of 128 threads (512 columns), {shape} (not kept)",
                    "f32 tiles of 256 threads (1024 columns), 16 + 16 rows × 2 blocks per SM (the shipped "
                    "shape until 510fc04's taller tiles for rows on whole pieces)",
                    lambda r: r["type"] == "f32" and targets_2d_row(r) and
                    not one_1080p_image(r),
                    bold="the f32 rows that take the large tiles (one 1920×1080 image takes the same "
                         "small tiles in both builds)")


def tiles256_ab_table(path):
    """The A/B of i32's and u8 -> i32's large tiles of 256 threads (32 rows) against
    b35dc97's of 128 threads, one GPU's run: the i32 and u8 -> i32 rows that take large tiles
    differ; one 1920×1080 image takes the same small tiles in both builds."""
    return ab_table(path, "the kernel of b35dc97 (i32 and u8 → i32 in tiles of 128 threads, 512 columns: "
                          "16 + 16 rows × 4 blocks per SM and 4 + 28 × 6)",
                    "i32 and u8 → i32 in tiles of 256 threads, 1024 columns: 16 + 16 rows × 2 blocks per SM "
                    "and 4 + 28 × 3 (the shipped shapes until 510fc04's taller tiles for rows on whole pieces)",
                    lambda r: r["type"] in ("i32", "u8i32") and targets_2d_row(r) and
                    not one_1080p_image(r),
                    bold="the i32 and u8 → i32 rows that take the large tiles (one 1920×1080 image takes the "
                         "same 128-thread tiles in both builds)")


def peers_ratio_table(path):
    """satlib against the CUB two-pass (and NPP where it ran) in one `build/peers` run per type,
    its printed rows as CSV: each one's median and each peer's time ÷ satlib's (time ÷ copy comes
    from bench_ab, whose copy alternates with the versions)."""
    rows = read_rows(path)
    by = {(r["variant"], r["type"], int(r["rows"])): r for r in rows}
    keys = list(dict.fromkeys((r["type"], int(r["rows"])) for r in rows))
    seeds = " and ".join(dict.fromkeys(r["seed"] for r in rows))
    checks = "every row PASS" if all(r["check"] == "PASS" for r in rows) else "NOT every row PASS"
    out = [f"{run_line(rows[0])}: `build/peers --variant CUB-two-pass,satlib` (u8 → i32 with NPP-integral too), "
           f"median of {rows[0]['reps']}, seeds {seeds}; {checks}", "",
           "| shape | type | satlib ms | CUB two-pass ms | CUB ÷ satlib | NPP ms | NPP ÷ satlib |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for t, n in keys:
        lib = by[("satlib", t, n)]
        ms = float(lib["median_ms"])
        cells = [f"{n}x{n}", type_label(t), f"{ms:.3f}"]
        for peer in ("CUB-two-pass", "NPP-integral"):
            r = by.get((peer, t, n))
            cells += ["-", "-"] if r is None else [f'{float(r["median_ms"]):.3f}', f'{float(r["median_ms"]) / ms:.2f}']
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def strips_ab_table(path):
    """The A/B of the strip walk (a ticket per tile row, not kept) against the kernel of 15c4b93
    (docs/tiles.md), one GPU's run: the launches with at least 3/4 of a round of strips walk."""
    return ab_table(path, "the kernel of 15c4b93 (a ticket per tile)",
                    "a ticket per strip of tiles from 3/4 of a round of strips on (not kept)",
                    lambda r: r["batch"] != "1" or (r["rows"] == r["cols"] and int(r["rows"]) >= 8192 and
                                                    r["type"] in ("f32", "f64", "i32")),
                    bold="the launches that walk strips (the others run the same kernel in both builds)")


def lab10_gpus_table(path):
    """Lab 10 across G GPUs of one host (harness CSV rows of `./lab10-ref --gpus G` as written, G = 1
    included): per schedule and shape, ms, the copy of each GPU's own bytes on it at once, time ÷
    that copy, the HMM prediction and G = 1 at 16384² ÷ this (ideal: G at a fixed size, 1 at a
    fixed size per GPU); λ and β of the NCCL exchange from lab10_links.csv, the runs'
    `calibration:` lines, which the CSV does not keep."""
    rows, seen = [], set()
    for r in read_rows(path):  # a shape run twice (G = 1 at 16384² in both sets): its first run
        if r["check"] == "PASS" and (r["variant"], r["rows"], r["cols"]) not in seen:
            seen.add((r["variant"], r["rows"], r["cols"]))
            rows.append(r)
    gpu = rows[0]["device"]
    links = {(int(l["gpus"]), l["rows"], l["cols"]): l for l in read_rows(path.parent / "lab10_links.csv")
             if l["gpu"] == gpu}
    if not links:
        raise ValueError(f"lab10_links.csv: no rows of {gpu}")
    first = next(iter(links.values()))
    gpus_of = lambda r: int(r["variant"].split("/G")[1]) if "/G" in r["variant"] else 1
    schedule = lambda r: r["variant"].split("/")[0]
    one_gpu = {schedule(r): float(r["median_ms"]) for r in rows if gpus_of(r) == 1}
    out = [f"{run_line(first)}, NCCL {first['nccl']}: `./lab10-ref --gpus G`, f32, median of {rows[0]['reps']}; "
           "copy = a device-to-device copy of each strip's bytes ((input + output) / 2) on its GPU, all GPUs "
           "at once; HMM = the harness's prediction; λ, β = the NCCL exchange fitted in the same run; "
           "the last column but two with perfect scaling: G at 16384², 1.00 at 16384 · G rows:", "",
           "| schedule | GPUs | rows × cols | ms | copy ms | ÷ copy | HMM ms | the schedule on 1 GPU at 16384² ÷ this | λ µs | β GB/s |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    # Per schedule: the fixed size (square) by G, then the fixed size per GPU by G.
    for r in sorted(rows, key=lambda r: (schedule(r) != "ScanThenAdd", r["rows"] != r["cols"], gpus_of(r))):
        g = gpus_of(r)
        link = links.get((g, r["rows"], r["cols"]))
        if g > 1 and link is None:
            raise ValueError(f"lab10_links.csv: no λ, β for {g} GPUs at {shape(r)}")
        cells = [schedule(r), str(g), f'{r["rows"]} × {r["cols"]}', f'{float(r["median_ms"]):.3f}',
                 f'{float(r["copy_ms"]):.3f}', f"{ratio(r):.2f}", f'{float(r["predicted_ms"]):.3f}',
                 f'{one_gpu[schedule(r)] / float(r["median_ms"]):.2f}',
                 link["lambda_us"] if link else "-", link["beta_gbps"] if link else "-"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def experiment_table(path):
    """One A/B experiment as the run's notes give it: the CSV's columns after the metadata and
    `shipped` are the table's (cells as written, ranges over repetitions included); the rows
    the code ships are bold."""
    rows = read_rows(path)
    columns = [c for c in rows[0] if c not in ("gpu", "driver", "cuda", "date", "shipped")]
    bold = lambda r, text: f"**{text}**" if r["shipped"] == "yes" else text
    out = [f"{run_line(rows[0])}:", "", "| " + " | ".join(columns) + " |",
           "|---|" + "---:|" * (len(columns) - 1)]
    for r in rows:
        out.append("| " + " | ".join(bold(r, r[c]) for c in columns) + " |")
    return "\n".join(out)


def phase_rows(path):
    """tools/ncu_phases.py --csv of one run: its rows, the cases and phases in order, and the row of
    each (case, phase), every one present."""
    rows = read_rows(path)
    runs = {tuple(r[k] for k in ("gpu", "driver", "cuda", "date")) for r in rows}
    if len(runs) != 1:
        raise ValueError(f"{path}: the cases come from {len(runs)} runs; the table names one")
    cases = list(dict.fromkeys(r["case"] for r in rows))
    phases = list(dict.fromkeys(r["phase"] for r in rows))
    cell = {(r["case"], r["phase"]): r for r in rows}
    missing = [f"{c}: {ph}" for c in cases for ph in phases if (c, ph) not in cell]
    if missing:
        raise ValueError(f"{path}: no row for " + ", ".join(missing))
    return rows, cases, phases, cell


def phases_table(path):
    """tools/ncu_phases.py's warp-state samples of the 2-D kernel per phase (docs/tiles.md): a
    row per phase, a column per profiled case; each cell its share of the case's samples and, in
    brackets, the share of samples of warps waiting at the barrier that opens the phase."""
    rows, cases, phases, cell = phase_rows(path)
    share = lambda r, k: f'{100 * int(r[k]) / int(r["total_samples"]):.1f}'
    out = [f"{run_line(rows[0])}: warp-state samples per phase of the tile loop, % of the case's samples "
           "(in brackets: the part of it that is warps waiting at the block barrier that opens the phase, and "
           "in column carries at its loop's second barrier and the top strip's, also in % of the case's samples)", "",
           "| phase | " + " | ".join(cases) + " |", "|---|" + "---:|" * len(cases)]
    for ph in phases:
        out.append(f"| {ph} | " + " | ".join(f'{share(cell[c, ph], "samples")} ({share(cell[c, ph], "barrier_samples")})'
                                            for c in cases) + " |")
    out.append("| samples | " + " | ".join(cell[c, phases[0]]["total_samples"] for c in cases) + " |")
    return "\n".join(out)


def odd_phases_table(path):
    """tools/ncu_phases.py --stall long_sb --executed, the lanes path against the vector path
    (docs/tiles.md, Where an odd width's time goes): a row per phase, a column per case; each cell
    the phase's samples, in brackets those waiting on a global load (long scoreboard), and the warp
    instructions it executed. Samples, not shares, so that the cases' phases compare directly."""
    rows, cases, phases, cell = phase_rows(path)
    thousands = lambda n: f"{int(n) / 1000:.1f} k"
    out = [f"{run_line(rows[0])}: warp-state samples per phase of the tile loop (in brackets: those of warps "
           "waiting on a global load, long scoreboard), then the warp instructions the phase executed, in millions", "",
           "| phase | " + " | ".join(cases) + " |", "|---|" + "---:|" * len(cases)]
    for ph in phases:
        out.append(f"| {ph} | " + " | ".join(
            f'{thousands(r["samples"])} ({thousands(r["stall_long_sb"])}) · {int(r["executed"]) / 1e6:.1f} M'
            for r in (cell[c, ph] for c in cases)) + " |")
    total = lambda c, k: sum(int(cell[c, ph][k]) for ph in phases)
    out.append("| all | " + " | ".join(f'{thousands(total(c, "samples"))} ({thousands(total(c, "stall_long_sb"))}) · '
                                         f'{total(c, "executed") / 1e6:.1f} M' for c in cases) + " |")
    return "\n".join(out)


def instructions_ab_table(path, base, this):
    """Warp instructions of two builds' kernels per shape (Nsight Compute's
    smsp__inst_executed.sum, the median over the launches the CSV counts) and their ratio."""
    rows = read_rows(path)
    out = [f"{run_line(rows[0])}: warp instructions executed per launch (Nsight Compute, "
           f"`smsp__inst_executed.sum`, median of {rows[0]['launches']} launches of each build); "
           f"base = {base}, this = {this}", "",
           "| shape | type | base | this | this ÷ base |", "|---|---|---:|---:|---:|"]
    for r in rows:
        out.append(f'| {batch_shape(r)} | {type_label(r["type"])} | {float(r["base_warp_instructions"]) / 1e6:.2f} M | '
                   f'{float(r["this_warp_instructions"]) / 1e6:.2f} M | {float(r["this_per_base"]):.3f} |')
    return "\n".join(out)


# Funasaka et al. 2017 on a Titan X (Pascal), Tables III and I: (multi-launch ms, SKSS ms, CPU ms).
PAPER_HALFTONE = {1024: (1.119, 0.5982, "6.4"), 2048: (2.242, 1.098, "25.9"), 4096: (4.586, 2.185, "103"),
                  8192: (9.272, 4.391, "412"), 16384: (19.17, 11.90, "1649")}
PAPER_KNAPSACK = {16384: (14.83, 5.037, "63"), 32768: (16.01, 5.515, "110"), 65536: (19.61, 9.315, "261"),
                  131072: (27.13, 15.14, "606"), 262144: (42.67, 27.24, "1259"), 524288: (87.8, 52.37, "2584")}


def lab8x_table(path, problem, multi, paper, size_of, head):
    """Lab 8x's two variants of one problem (harness CSV rows with the run's metadata in front):
    multi-launch and SKSS times, the speed-up, the paper's numbers and the CPU time."""
    rows = [r for r in read_rows(path) if r["variant"].startswith(problem + "/") and r["check"] == "PASS"]
    if not rows:
        raise ValueError(f"no PASS rows of {problem}")
    by = {(r["variant"].split("/", 1)[1], size_of(r)): r for r in rows}
    sizes = sorted({size_of(r) for r in rows})
    k = lambda n: f"{n // 1024}K"
    out = [f"{run_line(rows[0])}, median of {rows[0]['reps']} (CPU = the harness's one-thread CPU answer):", "",
           f"| {head} | {multi} ms | SKSS ms | speed-up | paper {multi} ms | paper SKSS ms | paper speed-up | CPU ms (paper) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sizes:
        m, sk = by.get((multi, n)), by.get(("SKSS", n))
        if m is None or sk is None:
            continue
        pm, ps, pcpu = paper.get(n, (None, None, "-"))
        tm, ts = float(m["median_ms"]), float(sk["median_ms"])
        cpu = float(m.get("cpu_ms") or sk.get("cpu_ms") or 0)
        out.append(f"| {k(n)} | {tm:.3f} | {ts:.3f} | **{tm / ts:.2f}×** | "
                   + (f"{pm} | {ps} | {pm / ps:.2f}× | " if pm else "- | - | - | ")
                   + (f"{cpu:.0f} ({pcpu}) |" if cpu >= 100 else f"{cpu:.1f} ({pcpu}) |"))
    return "\n".join(out)


def halftone_table(path):
    return lab8x_table(path, "halftone", "Parallel-Backward", PAPER_HALFTONE, lambda r: int(r["rows"]), "n")


def knapsack_table(path):
    return lab8x_table(path, "knapsack", "Parallel-Forward", PAPER_KNAPSACK, lambda r: int(r["cols"]), "W + 1")


def mutants_table(path):
    """The GPU mutants of one `make mutants` run: correctness points, caught, grading time."""
    rows = read_rows(path)
    caught = sum(r["caught"] == "yes" for r in rows)
    out = [f"{run_line(rows[0])}: {caught} of {len(rows)} GPU mutants caught.", "",
           "| mutant | lab | category | correctness | caught | grading time |", "|---|---|---|---:|---|---:|"]
    for r in rows:
        out.append(f"| {r['mutant']} | {r['lab']} | {r['category']} | {r['correctness']}/70 | {r['caught']} | "
                   f"{r['grading_s']} s |")
    return "\n".join(out)


# doc -> its tables: (marker name, generator, CSV: a name under docs/data/, or a path from the root)
TABLES = {
    "lab1.md": [("LAB1 TABLE", lambda p: variant_table(p, "1", [("f32", 4096, "ratio"), ("f32", 8192, "ratio"),
                                                                  ("u8i32", 4096, "ratio")],
                                                    copy="one thread's `memcpy`"), BENCH_H200)],
    "lab3.md": [("LAB3 TABLE", lambda p: variant_table(p, "3", [("f32", 16384, "ms"), ("f32", 16384, "copy"),
                                                                  ("f32", 16384, "ratio"), ("f32", 16384, "pred"),
                                                                  ("f64", 16384, "copy"), ("f64", 16384, "ratio")]),
                 BENCH_H200),
                ("LAB3 BLOCK SHAPES TABLE", experiment_table, "lab3_block_shapes_h200.csv"),
                ("LAB3 NCU TABLE", experiment_table, "lab3_ncu_h200.csv"),
                ("LAB3 VECTOR TABLE", experiment_table, "lab3_vector_transpose_h200.csv")],
    "lab2.md": [("LAB2 NCU TABLE", experiment_table, "lab2_ncu_h200.csv"),
                ("LAB2 TABLE", lambda p: sizes_table(p, "2", "2R2W", [4096, 16384]), BENCH_H200)],
    "lab5.md": [("LAB5 TABLE", lambda p: model_table(p, "5", [1024, 2048, 4096], [
                    (w, "5", v) for v in ("4R1W", "1R1W", "1R1W-graph") for w in ("ms", "pred")]), BENCH_H200),
                ("LAB5 LARGE TABLE", lambda p: model_table(p, "5", [8192, 16384, 32768], [
                    ("ms", "4", "2R1W"), ("ms", "5", "1R1W"), ("pred", "5", "1R1W"), ("ms", "5", "1R1W-graph"),
                    ("pred", "5", "1R1W-graph"), ("over", ("5", "1R1W-graph"), ("4", "2R1W")),
                    ("pct", "4", "2R1W"), ("pct", "5", "1R1W-graph")]), BENCH_H200),
                ("LAB5 TYPES TABLE", lambda p: variant_table(p, "5", [(t, 4096, "ms") for t in ("f32", "f64", "u8i32")]),
                 BENCH_H200),
                ("LAB5 FIT TABLE", lambda p: stage_fit_table(p, "5", ["1R1W", "1R1W-graph"], ("4", "2R1W")), BENCH_H200)],
    "lab6.md": [("LAB6 R STAR TABLE", lambda p: r_star_table(p, "6", [8192, 16384, 32768]), BENCH_H200),
                ("LAB6 SWEEP TABLE", experiment_table, "lab6_sweep_h200.csv"),
                ("LAB6 BENCH SWEEP TABLE", lambda p: r_sweep_table(p, "6", "(1+r)R1W", ("4", "2R1W"), [
                    ("f64", 4096), ("f64", 16384), ("f32", 16384)]), BENCH_H200),
                ("LAB6 BAND TABLE", lambda p: band_stage_table(p, ("5", "1R1W"), ("4", "2R1W"), 32768), BENCH_H200)],
    "lab4.md": [("LAB4 TABLE", lambda p: sizes_table(p, "4", "2R1W", [16384, 32768]), BENCH_H200),
                ("LAB4 NCU TABLE", experiment_table, "lab4_ncu_h200.csv")],
    "library.md": [("LIBRARY TABLE", library_table, "library_h100.csv"),
                   ("LIBRARY H200 TABLE", library_table, "library_h200.csv"),
                   ("LARGE SQUARES TABLE", large_squares_table, "large_squares_h100.csv"),
                   ("LARGE SQUARES H200 TABLE", large_squares_table, "large_squares_h200.csv"),
                   ("BATCH TABLE", lambda p: batch_table(p, "b992ac3"), "batch_h100.csv"),
                   ("BATCH H200 TABLE", batch_table, "batch_h200.csv"),
                   ("MEASURED TABLE", python_table, "python_h200.csv"),
                   ("MEASURED H100 TABLE", python_table, "python_h100.csv"),
                   ("HOST TIME TABLE", experiment_table, "host_time_h100.csv")],
    "tiles.md": [("AGGREGATES AB TABLE", lambda p: every_row_ab_table(p, AGGREGATES_BASE, AGGREGATES_THIS),
                  "aggregates_images_ab_h200.csv"),
                 ("AGGREGATES TARGETS AB TABLE", lambda p: one_round_targets_ab_table(p, AGGREGATES_BASE, AGGREGATES_THIS),
                  "aggregates_targets_ab_h200.csv"),
                 ("AGGREGATES TILE TIMES TABLE", tile_times_table, "tile_times_aggregates_h200.csv"),
                 ("SIX SUMS AB TABLE", lambda p: every_row_ab_table(p, SIX_SUMS_BASE, SIX_SUMS_THIS),
                  "column_sums_six_images_ab_h200.csv"),
                 ("SIX SUMS TARGETS AB TABLE", lambda p: one_round_targets_ab_table(p, SIX_SUMS_BASE, SIX_SUMS_THIS),
                  "column_sums_six_targets_ab_h200.csv"),
                 ("ROWS 34 AB TABLE", lambda p: ab_table(
                     p, SIX_SUMS_THIS, ROWS34_THIS, small_tiles_row,
                     bold="the rows whose tiles change (f64's keep theirs)"),
                  "rows34_images_ab_h200.csv"),
                 ("ROWS 34 TILE TIMES TABLE", tile_times_table, "tile_times_rows34_h200.csv"),
                 *aggregates_ab_tables("GROUPS", GROUPS_BASE, GROUPS_THIS, "groups"),
                 ("GROUPS TILE TIMES TABLE", tile_times_table, "tile_times_groups_h200.csv"),
                 *aggregates_ab_tables("GROUPS EVERY HEIGHT", GROUPS_BASE, GROUPS_EVERY_HEIGHT, "groups_every_height"),
                 *aggregates_ab_tables("ROW CARRIES", ROW_CARRIES_BASE, ROW_CARRIES_THIS, "row_carries"),
                 ("NCU TARGETS TABLE", experiment_table, "ncu_targets_h200.csv"),
                 ("NCU SHORT TILES TABLE", experiment_table, "ncu_short_tiles_h200.csv"),
                 ("SHORT TILES AB TABLE", short_tiles_ab_table, "short_tiles_images_ab_h200.csv"),
                 ("SHORT TILES TARGETS AB TABLE", short_tiles_ab_table, "short_tiles_targets_ab_h200.csv"),
                 ("INT SHORT TILES AB TABLE", int_short_tiles_ab_table, "short_tiles_int_images_ab_h200.csv"),
                 ("INT SHORT TILES TARGETS AB TABLE", int_short_tiles_ab_table, "short_tiles_int_targets_ab_h200.csv"),
                 ("PAIRS SHORT TILES AB TABLE", pairs_short_tiles_ab_table, "short_tiles_pairs_images_ab_h200.csv"),
                 ("PAIRS SHORT TILES TARGETS AB TABLE", pairs_short_tiles_ab_table,
                  "short_tiles_pairs_targets_ab_h200.csv"),
                 ("NCU TWO ROUNDS TABLE", experiment_table, "ncu_two_rounds_h200.csv"),
                 ("EVEN ROUNDS AB TABLE", even_rounds_ab_table, "even_rounds_targets_ab_h200.csv"),
                 ("SHORT 128 AB TABLE", short_tiles_128_ab_table, "short_tiles_128_images_ab_h200.csv"),
                 ("SMALL 128 AB TABLE", lambda p: ab_table(
                     p, SMALL_128_BASE, SMALL_128_THIS, small_tiles_rows_65_to_128,
                     bold="the images of one round of 65 to 128 small tile rows, which look back in the base"),
                  "small_tiles_128_images_ab_h200.csv"),
                 ("ROUNDS U8 AB TABLE", rounds_u8_ab_table, "rounds_u8_ab_h200.csv"),
                 ("ONE ROUND SMALL AB TABLE", one_round_small_ab_table, "one_round_small_images_ab_h200.csv"),
                 ("ONE ROUND SMALL ODD AB TABLE", one_round_small_ab_table, "one_round_small_odd_ab_h200.csv"),
                 ("ONE ROUND SMALL F64 AB TABLE", lambda p: one_round_small_ab_table(
                     p, ONE_ROUND_SMALL_F64_THIS, tuple(TALL_SMALL_TILES) + F64_ACCUMULATOR),
                  "one_round_small_f64_images_ab_h200.csv"),
                 ("TALL SMALL TILES AB TABLE", lambda p: ab_table(
                     p, TALL_BASE, TALL_THIS, takes_tall_small_tiles, bold="the rows that take the tall small tiles"),
                  "tall_small_tiles_images_ab_h200.csv"),
                 ("SMALL 38 AB TABLE", lambda p: ab_table(
                     p, TALL_BASE, SMALL_38_THIS, takes_small_tiles_38, bold="the rows whose kernels differ"),
                  "small_tiles_38_images_ab_h200.csv"),
                 ("SMALL TWO ROUNDS AB TABLE", lambda p: ab_table(
                     p, F64_40_BASE, SMALL_TWO_ROUNDS_THIS, small_tiles_in_two_rounds,
                     bold="the calls of one to two rounds of 256-thread tiles, whose kernels differ"),
                  "small_tiles_two_rounds_rounds_ab_h200.csv"),
                 ("F64 TILES 40 AB TABLE", lambda p: ab_table(
                     p, F64_40_BASE, F64_40_THIS, f64_large_tiles_image,
                     bold="the f64-accumulator images in 256-thread tiles, whose kernels differ"),
                  "f64_tiles_40_images_ab_h200.csv"),
                 ("PREFETCH AHEAD AB TABLE", lambda p: ab_table(
                     p, AHEAD_BASE, AHEAD_THIS, targets_row_of_rounds,
                     bold="the 2-D rows of more than one round of tiles, whose kernels differ"),
                  "prefetch_ahead_targets_ab_h200.csv"),
                 ("EVICT FIRST AB TABLE", lambda p: ab_table(
                     p, AHEAD_BASE, EVICT_FIRST_THIS, lambda r: targets_row_of_rounds(r) and r["type"] != "u8i32",
                     bold="the f32, f64 and i32 rows of more than one round of tiles, whose kernels differ"),
                  "evict_first_targets_ab_h200.csv"),
                 ("ROUNDS AB TABLE", rounds_ab_table, "rounds_ab_h200.csv"),
                 ("ROUNDS TARGETS AB TABLE", rounds_ab_table, "rounds_targets_ab_h200.csv"),
                 ("ROWS 17 AB TABLE", lambda p: f32_small_tiles_ab_table(p, ROWS17_THIS), "rows17_images_ab_h200.csv"),
                 ("ROWS 12 AB TABLE", lambda p: f32_small_tiles_ab_table(p, ROWS12_THIS), "rows12_images_ab_h200.csv"),
                 ("ROWS 36 AB TABLE", lambda p: ab_table(
                     p, SIX_SUMS_THIS, ROWS36_THIS, small_tiles_row,
                     bold="the rows whose tiles change (f64's keep theirs)"),
                  "rows36_images_ab_h200.csv"),
                 ("ROWS 36 TARGETS AB TABLE", lambda p: ab_table(
                     p, SIX_SUMS_THIS, ROWS36_THIS, lambda r: one_1080p_image(r) and r["type"] != "f64",
                     bold="one 1920×1080 image of f32 and u8 → i32, the targets' only rows whose tiles change"),
                  "rows36_targets_ab_h200.csv"),
                 ("AGGREGATES TIDY AB TABLE", lambda p: every_row_ab_table(
                     p, "the kernel of df61d03",
                     "left-edge tiles at partial only, no prefixes; the loops of the row sums and of the corner's "
                     "whole sums unrolled by 4 (not kept)"),
                  "aggregates_tidy_images_ab_h200.csv"),
                 ("TALLER TILES AB TABLE", taller_tiles_ab_table, "taller_tiles_ab_h200.csv"),
                 ("TALLER TILES SQUARES AB TABLE", taller_tiles_ab_table, "taller_tiles_squares_ab_h200.csv"),
                 ("TALLER TILES ODD AB TABLE", lambda p: taller_tiles_ab_table(
                     p, lambda r: False, bold="none: rows that do not start on whole pieces take 32-row tiles "
                                              "in both builds"),
                  "taller_tiles_odd_ab_h200.csv"),
                 ("BATCH ORDER AB TABLE", lambda p: ab_table(
                     p, "the kernel of 83daaf6 (a batch's tiles handed out image after image)",
                     "the kernel of 2da0c77 (a tile row of every image at a time)",
                     lambda r: r["batch"] != "1",
                     bold="the batches (single images take the same tile order in both builds)"),
                  "batch_order_ab_h200.csv"),
                 ("TIMELINE TABLE", timeline_table, "timeline_h100.csv"),
                 ("TILE TIMES TABLE", tile_times_table, "tile_times_h200.csv"),
                 ("TILE WAITS TABLE", tile_waits_table, "tile_waits_h200.csv"),
                 ("LATENCY UNROLL AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the column sums of a window added without an early exit (f32 and u8 → i32 accumulators: "
                     "in groups of 4, loads in flight together; f64 and i32: one at a time) and the "
                     "shared-memory rows' scans unrolled by 4 (f32 and u8 → i32; not kept)", "the kernel of 43b3a2f"),
                  "latency_unroll_ab_h200.csv"),
                 ("PREFETCH SPREAD AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the kernel of ef25d8d (row r issued by lane r / warps of warp r % warps)",
                     "the kernel of e9b045e (a tile's L2 prefetch issued by warp 0, a row per lane)"),
                  "prefetch_spread_ab_h200.csv"),
                 ("ROW LOADS AB TABLE", lambda p: ab_table(
                     p, "the kernel of 025fbc5",
                     "a window's row sums loaded 8 at a time, without an early exit (f32 and u8 → i32 "
                     "accumulators; not kept)",
                     lambda r: targets_2d_row(r) and r["type"] in ("f32", "u8i32"),
                     bold="the f32 and u8 → i32 2-D rows, whose kernels differ (f64 and i32 keep the loop of "
                     "the base; 33x4000000 and 4000000x3 are thin)"),
                  "row_loads_ab_h200.csv"),
                 ("FIRST ROUND TICKETS AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the first round's tickets the block indices, no atomic (not kept)", "the kernel of ef25d8d"),
                  "first_round_tickets_ab_h200.csv"),
                 ("LIKELY NEXT AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "warps 2 and up prefetch the likely next tile (ticket + grid size) into L2 at partial "
                     "(not kept)", "the kernel of 772e189 (ef25d8d's)"),
                  "likely_next_ab_h200.csv"),
                 ("PREFETCH BUDGET TABLE", prefetch_budget_table, "prefetch_budget_ab_h200.csv"),
                 ("NCU TABLE", experiment_table, "ncu_h100.csv"),
                 ("NCU H200 TABLE", experiment_table, "ncu_h200.csv"),
                 ("ODD NCU TABLE", experiment_table, "odd_ncu_h200.csv"),
                 ("PHASES TABLE", phases_table, "phases_h200.csv"),
                 ("PHASES BATCH ORDER TABLE", phases_table, "phases_batch_order_h200.csv"),
                 ("ODD PHASES TABLE", odd_phases_table, "odd_phases_h200.csv"),
                 ("PREFETCH TABLE", experiment_table, "prefetch_h100.csv"),
                 ("PREFETCH BATCH TABLE", experiment_table, "prefetch_batch_h100.csv"),
                 ("PREFETCH 40 AB TABLE", lambda p: ab_table(
                     p, "a prefetch of up to 40 MiB (every row of the 256-thread tiles)",
                     "24 MiB (23 of 32 rows in the 256-thread tiles of that build)",
                     lambda r: r["type"] in ("f32", "f64", "i32") and
                     not one_1080p_image(r),
                     bold="the rows that differ: more rows prefetched in the base (f32, f64 and i32 "
                          "beyond one round of tiles) or, at 33x4000000 f32, the base's thin chunks of "
                          "M = 3 (docs/thin.md)"),
                  "prefetch40_ab_h100.csv"),
                 ("TICKET AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the next ticket taken when the look-back ends, no barrier between the local "
                        "scan and the publication (not kept)",
                     base="the kernel of 15c4b93, its flags cleared by a memset"),
                  "ticket_ab_h100.csv"),
                 ("UNROLL AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the shared-memory row loops of the local scan and the write-out unrolled 4 "
                        "times (not kept)",
                     base="the kernel of 5366fca"),
                  "unroll4_ab_h200.csv"),
                 ("EDGE COPY AB TABLE", edge_copy_ab_table, "edge_copy_ab_h200.csv"),
                 ("EDGE GUARD ODD AB TABLE", lambda p: every_row_ab_table(
                     p, "the kernel of c213807 (the element loop's row pointer formed for every row)",
                     "the kernel of b35dc97 (formed for rows inside the matrix only, as in f892618)"),
                  "edge_guard_odd_ab_h200.csv"),
                 ("EDGE GUARD AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the kernel of b35dc97 (the element loop's row pointer formed for rows "
                        "inside the matrix only)",
                     base="the kernel of c213807 (the element loop's row pointer formed for every row)"),
                  "edge_guard_ab_h200.csv"),
                 ("TILES256 SQUARES AB TABLE", tiles256_ab_table, "tiles256_squares_ab_h200.csv"),
                 ("TILES256 TARGETS AB TABLE", tiles256_ab_table, "tiles256_targets_ab_h200.csv"),
                 ("TILES256 PEERS TABLE", peers_ratio_table, "tiles256_peers_h200.csv"),
                 ("LANES ODD AB TABLE", lambda p: ab_table(
                     p, "the kernel of 761722a",
                     "the shipped kernel (rows that do not start on a whole piece: shared-memory rows and "
                     "stores lane by lane in the 256-thread tiles; every kernel prefetches its next tile)",
                     large_tiles_odd_row,
                     bold="the rows that take the 256-thread tiles, lane by lane (one 1081x1921 image takes "
                          "the small tiles, element by element in both builds: only the prefetch differs)"),
                  "lanes_odd_ab_h200.csv"),
                 ("LANES INSIDE AB TABLE", lambda p: lanes_odd_ab_table(
                     p, "the kernel of bb05d5c",
                     "the shipped kernel (in the lanes path, a warp whose columns lie wholly inside the matrix "
                     "copies and stores with no bounds test per element)"),
                  "lanes_inside_odd_ab_h200.csv"),
                 ("ONE ROUND AB TABLE", lambda p: ab_table(
                     p, "the kernel of 4fb4c4c",
                     "the shipped kernel (a launch with a block per tile takes no next ticket)",
                     one_1080p_image,
                     bold="one 1920×1080 image, the rows launched with a block per tile (the other 2-D rows "
                          "run more tiles than blocks, the same code in both builds; 33x4000000 and "
                          "4000000x3 are thin)"),
                  "oneround_targets_ab_h200.csv"),
                 ("WORDS AB TABLE", lambda p: u8_lanes_odd_ab_table(
                     p, "u8 and u16 shared-memory rows copied in aligned 4-byte words, shifted on reading "
                        "(not kept)",
                     "the shipped kernel (efa2eb7: u8 through registers, byte by byte)"),
                  "words_odd_ab_h200.csv"),
                 ("SHIFTED STORES AB TABLE", lambda p: lanes_odd_ab_table(
                     p, "the kernel of efa2eb7 (a warp wholly inside the matrix stores lane by lane through "
                        "its stage)",
                     "that warp's row in aligned 16-byte pieces, the elements before each from the lane "
                     "before by shuffles (not kept)"),
                  "shifted_stores_odd_ab_h200.csv"),
                 ("U8 ROWS AB TABLE", lambda p: u8_lanes_odd_ab_table(
                     p, "the kernel of efa2eb7 (u8 shared-memory rows through registers, row by row)",
                     "the shipped kernel (9b2efec: a tile wholly inside the matrix, 7 rows at a time, "
                     "every load of a group before its stores)"),
                  "u8rows_odd_ab_h200.csv"),
                 ("U8 GROUPS AB TABLE", lambda p: u8_lanes_odd_ab_table(
                     p, "the kernel of efa2eb7 (u8 shared-memory rows through registers, 4 rows a group)",
                     "7 rows a group, 28 loads of a lane in flight (not kept)"),
                  "u8groups_odd_ab_h200.csv"),
                 ("SHIFTED ROWS AB TABLE", lambda p: register_rows_ab_table(
                     p, "the kernel of efa2eb7 (the register rows element by element)",
                     "f32 and i32 register rows from aligned 16-byte loads, shifted by shuffles (not kept)"),
                  "shifted_rows_odd_ab_h200.csv"),
                 ("STAGE ROWS AB TABLE", lambda p: lanes_odd_ab_table(
                     p, "the kernel of 9b2efec (the write-out through a stage of one row per warp)",
                     "a stage of 4 rows per warp, two `__syncwarp` per 4 rows (not kept)"),
                  "stage_odd_ab_h200.csv"),
                 ("HELD WHOLE AB TABLE", lambda p: ab_table(
                     p, "the kernel of 73521d0",
                     "the kernel of 52b10bf (integer register rows held whole after the row scan)",
                     lambda r: r["type"] in ("i32", "u8i32"),
                     bold="the integer rows, whose kernels differ (f32 and f64 run the same code in both builds)"),
                  "held_odd_ab_h200.csv"),
                 ("HELD PHASES TABLE", odd_phases_table, "held_phases_h200.csv"),
                 ("ROW STEP AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the shipped kernel (the shared-memory rows' output pointer stepped by the pitch)",
                     "the kernel of bd618c1 (formed per row)"),
                  "row_step_targets_ab_h200.csv"),
                 ("PIECE LOOP AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "a loop of its own for a thread whose piece lies wholly inside, one predicated "
                        "16-byte store a row (not kept)",
                     "the kernel of 0a6f7d5"),
                  "piece_loop_targets_ab_h200.csv"),
                 ("ROW STEP INSTRUCTIONS TABLE", lambda p: instructions_ab_table(
                     p, "the kernel of bd618c1", "the shipped kernel"),
                  "row_step_u8_instructions_h200.csv"),
                 ("ALIGNED ROWS AB TABLE", lambda p: register_rows_ab_table(
                     p, "the kernel of 73521d0 (the register rows element by element)",
                     "f32 and i32 register rows from aligned 16-byte loads, every row's load issued before "
                     "any shuffle (not kept)"),
                  "aligned_rows_odd_ab_h200.csv"),
                 ("LANES REGISTERS AB TABLE", lambda p: ab_table(
                     p, "the kernel of 761722a",
                     "the register rows lane by lane too, turned into pieces through the stage, i32 element by "
                     "element (not kept)",
                     lambda r: large_tiles_odd_row(r) and r["type"] != "i32",
                     bold="the rows that take the 256-thread tiles, lane by lane (i32 and one 1081x1921 "
                          "image: element by element, only the prefetch differs)"),
                  "lanes_registers_odd_ab_h200.csv"),
                 ("LANES EVERY TILE AB TABLE", lambda p: every_row_ab_table(
                     p, "the kernel of 761722a",
                     "every row lane by lane, register rows included, in every tile shape and type (not kept)"),
                  "lanes_every_tile_odd_ab_h200.csv"),
                 ("ELEMENT CP ASYNC ODD AB TABLE", lambda p: ab_table(
                     p, "the kernel of b35dc97",
                     "a cp.async per element of 4 or 8 bytes in the element loop (not kept)",
                     lambda r: r["type"] != "u8i32",
                     bold="the rows whose kernels differ (u8 → i32 copies through registers in both)"),
                  "element_cp_async_odd_ab_h200.csv"),
                 ("ELEMENT CP ASYNC AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "a cp.async per element of 4 or 8 bytes in the element loop (not kept)",
                     base="the kernel of b35dc97"),
                  "element_cp_async_ab_h200.csv"),
                 ("WARPS LEFT AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the kernel of ea3ffc4 (each row's sums of the warps to the left added up "
                        "once per tile, one shared-memory read per row in the write-out)",
                     base="the kernel of 13bfef3 (a loop over the warps to the left for every row "
                          "and thread)"),
                  "warps_left_ab_h200.csv"),
                 ("AGGREGATES FIRST AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the aggregates summed and published before the local scan, which the warps "
                        "do during warp 0's row look-back (not kept)",
                     base="the kernel of 5366fca"),
                  "aggregates_first_ab_h200.csv"),
                 ("EARLY LOADS AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the next tile's loads started as this tile's rows are written (not kept)",
                     base="the kernel of 15c4b93 (a tile's loads start after the tile before it is "
                          "written), its flags cleared by a memset"),
                  "early_loads_ab_h100.csv"),
                 ("CLEAR FLAGS AB TABLE", lambda p: every_row_ab_table(
                     p, "a memset of the flags before each launch (15c4b93)",
                     "clear_flags, which the 2-D and thin launches overlap (the library of e62f8a2)"),
                  "clear_flags_ab_h100.csv"),
                 ("CLEAR FLAGS H200 AB TABLE", lambda p: kernel_2d_ab_table(
                     p, "the 2-D launches overlap clear_flags (the thin ones follow a memset)",
                     base="a memset of the flags before each launch (15c4b93)"),
                  "clear_flags_ab_h200.csv"),
                 ("WARP SPECIALIZED AB TABLE", lambda p: ab_table(
                     p, "the kernel of 15c4b93",
                     "the warp-specialized kernel for f32 sums wherever that kernel takes its "
                     "large tiles (a producer, a reducer and a looker warp; two groups of 128 threads; "
                     "three stages of 32 × 512; not kept)",
                     lambda r: r["type"] == "f32" and targets_2d_row(r) and
                     not one_1080p_image(r),
                     bold="the rows whose kernels differ (one f32 1920×1080 image keeps the small tiles)"),
                  "ws_roles_ab_h200.csv"),
                 ("WARP SPECIALIZED NCU TABLE", experiment_table, "ws_ncu_h200.csv"),
                 ("SHAPE 28 36 AB TABLE", lambda p: shape128_ab_table(p, "28 + 36 rows × 3 blocks per SM"),
                  "shape128x3_ab_h200.csv"),
                 ("SHAPE 16 16 AB TABLE", lambda p: shape128_ab_table(p, "16 + 16 rows × 4 blocks per SM"),
                  "shape128x4_ab_h200.csv"),
                 ("STRIPS AB TABLE", strips_ab_table, "strips_ab_h200.csv"),
                 ("STRIPS H100 AB TABLE", strips_ab_table, "strips_ab_h100.csv")],
    "lab8x.md": [("HALFTONE TABLE", halftone_table, "lab8x_h200.csv"),
                 ("KNAPSACK TABLE", knapsack_table, "lab8x_h200.csv")],
    "lab10.md": [(name, lambda p: variant_table(p, "10", [("f32", n, what) for n in (8192, 16384)
                                                           for what in ("ms", "ratio", "pred")]), bench)
                 for name, bench in (("LAB10 TABLE", RESULTS_BENCH["H100"]),
                                     ("LAB10 H200 TABLE", RESULTS_BENCH["H200"]))] +
                [("LAB10 GPUS H100 TABLE", lab10_gpus_table, "lab10_gpus_h100.csv"),
                 ("LAB10 GPUS H200 TABLE", lab10_gpus_table, "lab10_gpus_h200.csv")],
    "lab9.md": [("LAB9 TABLE", lab9_table, "library_h100.csv"),
                ("WIDE TILES TABLE", experiment_table, "wide_tiles_h100.csv"),
                ("LAB9 BATCH TABLE", experiment_table, "lab9_batch_h100.csv"),
                ("TILES TABLE", tiles_table, "tiles_h100.csv"),
                ("TILE SWEEP TABLE", tile_sweep_table, "tiles_h200.csv"),
                ("SMALL TILES AB TABLE", lambda p: ab_table(
                    p, "f32 small images in tiles of 64 threads (16 + 16 × 8)",
                    "the shipped tiles (16 + 16 × 4 of 128 threads)",
                    lambda r: r["type"] == "f32" and r["batch"] == "1" and r["rows"] == "1080"),
                 "small_tiles_ab_h200.csv"),
                ("TILES160 AB TABLE", lambda p: ab_table(
                    p, "15c4b93's shapes (f32 16 + 16 × 2 of 256 threads, u8→i32 4 + 28 × 6 of 128)",
                    "tiles of 160 threads, 640 columns (f32 16 + 16 × 3, u8→i32 4 + 28 × 5; not kept)",
                    lambda r: targets_2d_row(r) and (r["type"] == "u8i32" or (
                        r["type"] == "f32" and not one_1080p_image(r))),
                    bold="the rows whose tiles differ (one f32 1920×1080 image takes the 128-thread tiles in both)"),
                 "tiles160_ab_h100.csv")],
    "thin.md": [("LINES TABLE", experiment_table, "lines_h100.csv"),
                ("WIDE TILES AB TABLE", lambda p: ab_table(
                    p, WIDE_BASE,
                    "wide thin images of 24 to 64 rows in the 2-D tiles where those are at least 60 % full and "
                    "the scratch stays within 10 %", takes_wide_tiles,
                    bold="the rows that take the 2-D tiles (the others take the chunks in both builds)"),
                 "wide_tiles_ab_h200.csv"),
                ("WIDE F64 AB TABLE", lambda p: ab_table(
                    p, "the kernels of a9fd1a2 (f64 wide thin images of 33 rows in the chunks)",
                    "f64-accumulator wide thin images of 33 or 34 rows in one tile row of 34 × 512 (16 + 18 "
                    "rows: the kernels of a608933)",
                    takes_f64_wide_thin_tiles,
                    bold="the rows in the tiles of 34 rows (the others take the same path in both builds)"),
                 "wide_f64_ab_h200.csv"),
                ("WIDE F64 SHAPE AB TABLE", lambda p: ab_table(
                    p, "the kernels of a608933 (tiles of 16 + 18 rows)",
                    "tiles of 12 + 22 rows (WideThinTileShape)", takes_f64_wide_thin_tiles,
                    bold="the rows in the tiles of 34 rows (the others run the same kernels in both builds)"),
                 "wide_f64_shape_ab_h200.csv"),
                ("WIDE LANES AB TABLE", lambda p: ab_table(
                    p, "the kernels of e62dc54 (f32, i32 and u8 → i32 images of 33 or 34 rows at odd pitches in "
                    "the chunks)",
                    "f32, i32 and u8 → i32 images of 33 or 34 rows at odd pitches in one tile row of 34 × 1024, "
                    "lane by lane (16 + 18 and 4 + 30 rows, WideThinTileShape)",
                    lambda r: takes_wide_thin_tiles(r, ("f32", "i32", "u8i32")),
                    bold="the rows in this build's tiles of 34 rows (the others run the same kernels in both builds)"),
                 "wide_lanes_ab_h200.csv"),
                ("THIN SMALL BLOCKS SAME TYPE AB TABLE", lambda p: ab_table(
                    p, SMALL_BLOCKS_BASE, "one wide f32 or i32 image of at most 16 rows in blocks of 128 threads, "
                    "7 an SM (not kept as such: 391944e takes them up to 5 rows)",
                    lambda r: takes_small_thin_blocks(r, 16),
                    bold="the rows in blocks of 128 threads (the others keep blocks of 256 threads in both builds)"),
                 "thin_small_blocks_same_type_ab_h200.csv"),
                ("THIN SMALL BLOCKS PITCHES AB TABLE", lambda p: ab_table(
                    p, SMALL_BLOCKS_BASE, "the build of the table above (blocks of 128 threads up to 16 rows)",
                    lambda r: takes_small_thin_blocks(r, 16),
                    bold="the rows in blocks of 128 threads (the others keep blocks of 256 threads in both builds)"),
                 "thin_small_blocks_pitches_ab_h200.csv"),
                ("THIN VARIANTS FEW ROWS TABLE", lambda p: variants_table(p, "391944e", THIN_VARIANTS_FEW_ROWS_CAPTION),
                 "thin_variants_few_rows_ab_h200.csv"),
                ("THIN VARIANTS THIN TABLE", lambda p: variants_table(p, "391944e", THIN_VARIANTS_THIN_CAPTION),
                 "thin_variants_thin_ab_h200.csv"),
                ("THIN SMALL BLOCKS THIN AB TABLE", lambda p: ab_table(
                    p, SMALL_BLOCKS_BASE, "one wide f32 or i32 image of at most 5 rows in blocks of 128 threads "
                    "(391944e's rule)", lambda r: takes_small_thin_blocks(r, 5),
                    bold="the rows in blocks of 128 threads (the others keep blocks of 256 threads in both builds)"),
                 "thin_small_blocks_thin_ab_h200.csv"),
                ("WIDE LANES PITCHES AB TABLE", lambda p: ab_table(
                    p, "the kernels of e62dc54", "the kernels of the WIDE LANES AB TABLE's build (f32, i32 and u8 → i32 "
                    "images of 33 or 34 rows at odd pitches in one tile row of 34)",
                    lambda r: takes_wide_thin_tiles(r, ("f32", "i32", "u8i32")),
                    bold="the rows in this build's tiles of 34 rows (the others run the same kernels in both builds)"),
                 "wide_lanes_pitches_ab_h200.csv"),
                ("WIDE ALL AB TABLE", wide_all_ab_table, "wide_all_ab_h200.csv"),
                ("WIDE ALL2 AB TABLE", wide_all_ab_table, "wide_all2_ab_h200.csv"),
                ("LINE POINTER AB TABLE", lambda p: ab_table(
                    p, "the input widened by a transform iterator",
                    "the input pointer, widened as CUB loads it (shipped)", lambda r: r["type"] == "u8i32",
                    bold="the u8 → i32 rows, whose scans differ (f32, f64 and i32 take the pointer in both)"),
                 "line_pointer_ab_h200.csv"),
                ("LINE WORDS AB TABLE", lambda p: ab_table(
                    p, "the library of 0356b57 (every line element by element)",
                    "u8 → i32 lines in words of four (shipped)", lambda r: r["type"] == "u8i32",
                    bold="the u8 → i32 rows, whose scans differ (f32, f64 and i32 are scanned element by element in both)"),
                 "line_words_ab_h200.csv"),
                ("LINE WORDS NCU TABLE", experiment_table, "line_words_ncu_h200.csv"),
                ("LINE WORDS ITEMS AB TABLE", lambda p: ab_table(
                    p, "9144282 (u8 → i32 words with CUB's 24 items per thread)",
                    "12 items per thread (shipped)", lambda r: r["type"] == "u8i32",
                    bold="the u8 → i32 rows, whose scans differ (f32, f64 and i32 are scanned element by element in both)"),
                 "line_words_items_ab_h200.csv"),
                ("ROWS WORDS AB TABLE", lambda p: ab_table(
                    p, "f11c644 (u8 → i32 images of 3 rows in the chunks)",
                    "u8 → i32 images of 2 or 3 rows as a word scan per row (as in be9e1ae; the build also had the "
                    "element-by-element lines at 16 items per thread, not kept, which no row of this set takes)",
                    lambda r: r["type"] == "u8i32" and r["batch"] == "1" and r["rows"] in ("2", "3"),
                    bold="the u8 → i32 row of 3 rows, whose scans differ (the other rows take the chunks in both)"),
                 "rows_words_ab_h200.csv"),
                ("THIN NCU SHIPPED TABLE", experiment_table, "thin_ncu_shipped_h200.csv"),
                ("ROWS WIDTHS AB TABLE", lambda p: ab_table(
                    p, "f11c644 (the chunks)", "b1dbec9 (every one of these images as a word scan per row)",
                    lambda r: r["rows"] == "3" and int(r["cols"]) < 4000000,
                    bold="the images of 3 rows narrower than 4,000,000, where a scan per row loses to the chunks"),
                 "rows_widths_ab_h200.csv"),
                ("ROWS PACKED AB TABLE", lambda p: ab_table(
                    p, "every one of these images as one packed scan (CUB's sm_90 tuning for 128-bit sums)",
                    "8b68199 (2 rows a word scan per row; 3 rows the chunks below 4,000,000 columns, a word scan "
                    "per row from there)",
                    packed_in_dd97de7,
                    bold="the images dd97de7 scans packed (this ÷ base above 1: the packed scan is faster)"),
                 "rows_packed_ab_h200.csv"),
                ("ROWS SHIPPED AB TABLE", lambda p: ab_table(
                    p, "8b68199", "dd97de7 (one 128-bit packed scan below 2,000,000 columns for 2 rows and "
                    "20,000,000 for 3, a word scan per row from there)", packed_in_dd97de7,
                    bold="the images whose path differs (packed in this build)"),
                 "rows_shipped_ab_h200.csv"),
                ("ROWS LANES AB TABLE", lambda p: ab_table(
                    p, "0198ceb (dd97de7's scans: 128-bit packed below 2,000,000 columns for 2 rows and "
                    "20,000,000 for 3, a word scan per row from there)",
                    "the packed scan of 32-bit lanes at 256 × 8 at every width (the library's from 8,000,000 "
                    "columns)", packed_in_shipped,
                    bold="the images the shipped library scans as lanes (2 × 40,000,000 keeps a scan per row)"),
                 "rows_lanes_ab_h200.csv"),
                ("ROWS PACKED NCU TABLE", experiment_table, "rows_packed_ncu_h200.csv"),
                ("ROWS LANES NCU TABLE", experiment_table, "rows_lanes_ncu_h200.csv"),
                ("ROWS LANES POLICY TABLE", lane_policy_table, "rows_lanes_policy_ab_h200_512x4.csv"),
                ("ROWS SHORT TILES AB TABLE", lambda p: ab_table(
                    p, "da095d3 (the lanes at 256 × 8 at every width)",
                    "512 × 4 for rows of fewer than 2,000,000 words (the shipped policy)",
                    lambda r: int(r["cols"]) // 4 < 2000000,
                    bold="the images whose policy differs (this ÷ base below 1: 512 × 4 is faster)"),
                 "rows_short_tiles_ab_h200.csv"),
                ("COLUMNS AB TABLE", lambda p: ab_table(
                    p, "dd78b1b (the chunks)", "da095d3 (one packed scan down the columns, the shipped path)",
                    lambda r: True, bold="every row (the paths differ on all)"),
                 "columns_ab_h200.csv"),
                ("COLUMNS THIN AB TABLE", lambda p: ab_table(
                    p, "dd78b1b", "da095d3 (u8 → i32 images of 2 or 3 contiguous columns packed)",
                    lambda r: r["type"] == "u8i32" and r["batch"] == "1" and r["cols"] in ("2", "3"),
                    bold="the image whose path differs"),
                 "columns_thin_ab_h200.csv"),
                ("COLUMNS SHORT TILES AB TABLE", lambda p: ab_table(
                    p, "da095d3 (256 × 8 at every height)", "512 × 4 below 8,000,000 rows (2,000,000 items; the library scans the columns at 256 × 8)",
                    lambda r: int(r["rows"]) // 4 < 2000000,
                    bold="the images whose policy differs (this ÷ base above 1: 512 × 4 is slower)"),
                 "columns_short_tiles_ab_h200.csv"),
                ("ROWS ELEMENT LANES AB TABLE", lambda p: ab_table(
                    p, "22b5f30 (the chunks)", "the element lanes at every width (81846a5's kernels without its 2 MiB switch)",
                    lambda r: r["type"] != "u8i32",
                    bold="the f32, f64 and i32 images, whose paths differ (the u8 → i32 rows run the same code in both)"),
                 "rows_element_lanes_ab_h200.csv"),
                ("ROWS ELEMENT LANES ROUTED AB TABLE", lambda p: ab_table(
                    p, "22b5f30 (the chunks)", "81846a5 (the element lanes for rows narrower than 2 MiB)",
                    element_lanes_in_81846a5, bold="the images the element lanes take"),
                 "rows_element_lanes_routed_ab_h200.csv"),
                ("ROWS GROUP LANES AB TABLE", lambda p: ab_table(
                    p, "3a3cca7 (element lanes below 2 MiB a row, the chunks from there)",
                    "group lanes for f32, f64 and i32 images of 2 or 3 rows from 2 MiB a row (not the shipped rule)",
                    group_lanes_measured, bold="the images in group lanes in this build"),
                 "rows_group_lanes_ab_h200.csv"),
                ("ROWS GROUP LANES NARROW AB TABLE", lambda p: ab_table(
                    p, "group lanes at every width", "element lanes below 2 MiB a row, group lanes from there",
                    lambda r: r["type"] != "u8i32" and not group_lanes_measured(r),
                    bold="the images narrower than 2 MiB a row, whose lanes differ"),
                 "rows_group_lanes_narrow_ab_h200.csv"),
                ("ROWS GROUP LANES ROUTED AB TABLE", lambda p: ab_table(
                    p, "3a3cca7", "9ef1d1c (group lanes for 2 f32 or i32 rows from 2 MiB a row)",
                    group_lanes_shipped, bold="the images the group lanes take"),
                 "rows_group_lanes_routed_ab_h200.csv"),
                ("THIN TABLE", thin_table, "thin_h100.csv"),
                ("THIN LOADS AB TABLE", lambda p: ab_table(
                    p, "u8 loaded 4 bytes at a time", "16-byte input loads (the shipped chunks)",
                    lambda r: r["type"] == "u8i32", bold="the u8 rows, whose loads differ"),
                 "thin_loads_ab_h200.csv"),
                ("THIN CHUNK96 AB TABLE", lambda p: ab_table(
                    p, "96 KB chunks", "the shipped 64 KB chunks", lambda r: r["rows"] == "3" or r["cols"] == "3",
                    bold="the 3-wide rows, whose chunks differ"),
                 "thin_chunk96_ab_h200.csv"),
                ("THIN LOADS IN FLIGHT AB TABLE", lambda p: every_row_ab_table(
                    p, "16 loads in flight, registers for 2 blocks per SM",
                    "the shipped 8 loads, registers for 3 blocks per SM"),
                 "thin_loads_in_flight_ab_h200.csv"),
                ("THIN NCU TABLE", experiment_table, "thin_ncu_h200.csv"),
                ("THIN M2 AB TABLE", thin_m2_ab_table,
                 "thin_m2_ab_h100.csv"),
                ("THIN M2 AB H200 TABLE", thin_m2_ab_table,
                 "thin_m2_ab_h200.csv"),
                ("THIN PAD AB TABLE", lambda p: ab_table(
                    p, "tall segments of M = 2 padded to 2K + 1 (67 elements at K = 33, 3 blocks per SM)",
                    "the shipped unpadded 2K",
                    lambda r: r["rows"] == "4000000" and r["type"] == "f32",
                    bold="the row whose plan differs"),
                 "thin_pad_ab_h200.csv"),
                ("THIN CURSOR AB TABLE", thin_cursor_ab_table, "thin_cursor_ab_h200.csv"),
                ("THIN CURSOR AB H100 TABLE", thin_cursor_ab_table, "thin_cursor_ab_h100.csv"),
                ("THIN L2 PREFETCH AB TABLE", lambda p: ab_table(
                    p, "the chunks of 3a3cca7 (no prefetch)",
                    "each chunk's input prefetched into L2 a wave of resident blocks ahead (not kept)",
                    lambda r: not word_lanes_row(r), bold="the rows that take the chunks"),
                 "thin_l2_prefetch_ab_h200.csv"),
                ("THIN GROUPS AB TABLE", lambda p: every_row_ab_table(
                    p, "one component at a time (warp scans in step 2; a division per group)",
                    "components in groups of four (not kept)"),
                 "thin_groups_ab_h200.csv"),
                ("THIN FOLD AB TABLE", lambda p: every_row_ab_table(
                    p, "the kernel of 3b98f6e (the carry added on the way out)",
                    "the carry folded into the last lines (not kept)"),
                 "thin_fold_ab_h200.csv"),
                ("THIN WARP OFFSETS AB TABLE", lambda p: every_row_ab_table(
                    p, "the kernel of 15c4b93 (each warp's offset added to its last lines in step 2)",
                    "the offsets added with the carry on the way out (not kept)"),
                 "thin_warp_offsets_ab_h100.csv"),
                ("THIN NCU CURSOR TABLE", experiment_table, "thin_ncu_cursor_h200.csv"),
                ("THIN LINES AB TABLE", thin_lines_ab_table, "thin_lines_ab_h200.csv"),
                ("THIN LINES AB H100 TABLE", thin_lines_ab_table, "thin_lines_ab_h100.csv"),
                ("THIN WALK AB TABLE", thin_walk_ab_table, "thin_walk_ab_h200.csv"),
                ("THIN WALK AB H100 TABLE", thin_walk_ab_table, "thin_walk_ab_h100.csv"),
                ("THIN ROTATE WIDTHS AB TABLE", thin_rotate_ab_table, "thin_rotate_widths_ab_h100.csv"),
                ("THIN ROTATE WIDTHS VS ALL TABLE", thin_rotate_vs_all_table, "thin_rotate_widths_vs_all_h100.csv"),
                ("THIN ROTATE AB TABLE", thin_rotate_ab_table, "thin_rotate_ab_h100.csv"),
                ("THIN PITCHES AB TABLE", lambda p: ab_table(
                    p, "the kernel of b992ac3 (rows that are not whole groups: element by element)",
                    "shifted 16-byte groups, loads and writes, for every type (the kernel of e0cb43a "
                    "for all but f64)", lambda r: r["type"] != "f64",
                    bold="the rows that run the kernel of e0cb43a (its f64 inputs load element by "
                         "element: the f64 row's shifted loads were not kept)"),
                 "thin_pitches_ab_h200.csv"),
                ("THIN PITCHES LOADS AB TABLE", lambda p: every_row_ab_table(
                    p, "element loads, shifted writes (e0cb43a's f64 kernel)", "shifted loads and writes"),
                 "thin_pitches_loads_ab_h200.csv"),
                ("THIN PITCHES WRITES AB TABLE", lambda p: every_row_ab_table(
                    p, "shifted loads, element writes (not kept)", "shifted loads and writes"),
                 "thin_pitches_writes_ab_h200.csv"),
                ("THIN PITCHES SHUFFLE AB TABLE", lambda p: ab_table(
                    p, "the kernel of 5b194a2 (two loads per shifted group, 4 in flight; f64: element loads)",
                    "one load per group and a shuffle for 2-, 4- and 8-byte inputs (the kernel of bc9b0ba)",
                    lambda r: r["type"] != "u8i32",
                    bold="the rows whose kernels differ (u8 inputs keep two loads per group: the same PTX in "
                         "both builds)"),
                 "thin_pitches_shuffle_ab_h200.csv"),
                ("THIN PITCHES SHUFFLE ALL AB TABLE", lambda p: ab_table(
                    p, "the kernel of 5b194a2", "the shuffle for u8, f32 and i32 inputs, f64 as in the base "
                    "(u8's shuffle not kept)", lambda r: r["type"] != "f64" and r["cols"] != "40000004",
                    bold="the rows that load shifted groups in both builds"),
                 "thin_pitches_shuffle_all_ab_h200.csv"),
                ("THIN SEGMENT WALK AB TABLE", lambda p: ab_table(
                    p, "the kernel of 0ecf399 (a division per element where a tall segment is padded or the "
                    "pitch is not K)", "one division per group (SegmentWalk; the kernel of 413c492)",
                    padded_tall_row,
                    bold="the tall rows of even K, whose segments are padded (the tall rows of odd K run "
                         "other PTX in the two builds too)"),
                 "thin_segment_walk_ab_h200.csv"),
                ("THIN PADDED GROUP AB TABLE", lambda p: ab_table(
                    p, "the kernel of c29343c (a padded group's places by a count that wraps, SegmentWalk)",
                    "one comparison per element (PaddedGroup; the kernel of d40558c)",
                    padded_tall_row, bold="the tall rows of even K, whose segments are padded"),
                 "thin_padded_group_ab_h200.csv"),
                ("THIN PADDED ROTATION AB TABLE", lambda p: ab_table(
                    p, "the kernel of c29343c (a padded tall group stored and read in element order)",
                    "each thread starting at its own element of a group (rotated; not kept)",
                    padded_tall_row, bold="the tall rows of even K, whose segments are padded"),
                 "thin_padded_rotation_ab_h200.csv"),
                ("THIN PADDED ROTATION NCU TABLE", experiment_table, "thin_padded_rotation_ncu_h200.csv"),
                ("THIN FOUR BLOCKS AB TABLE", lambda p: ab_table(
                    p, "the kernel of 413c492 (64 KB chunks, 3 blocks per SM)",
                    "chunks for 4 blocks per SM where they keep 4 lines per thread (the kernel of 937c09f)",
                    lambda r: r["batch"] == "1" and ((r["type"] in ("f32", "i32") and int(r["cols"]) <= 12) or
                                                     (r["type"] == "f64" and r["cols"] == "3")),
                    bold="the rows whose plans differ"),
                 "thin_four_blocks_ab_h200.csv"),
                ("THIN STRAIGHT ALL SAME AB TABLE", lambda p: ab_table(
                    p, "the library of 07c3475 (16-byte groups through registers, 8 in flight per thread)",
                    "cp.async for f32, i32 and f64 chunks in 16-byte groups at every K (not the shipped rule)",
                    straight_at_every_width, bold="the rows whose loads differ"),
                 "thin_straight_all_same_ab_h200.csv"),
                ("THIN STRAIGHT SAME AB TABLE", straight_ab_table,
                 "thin_straight_same_ab_h200.csv"),
                ("THIN STRAIGHT AB TABLE", straight_ab_table,
                 "thin_straight_ab_h200.csv"),
                ("THIN STRAIGHT NCU K3 TABLE", experiment_table, "thin_straight_ncu_k3_h200.csv"),
                ("THIN STRAIGHT NCU K33 TABLE", experiment_table, "thin_straight_ncu_k33_h200.csv"),
                ("THIN NCU LINES TABLE", experiment_table, "thin_ncu_lines_h200.csv"),
                ("THIN SASS SPLIT TABLE", experiment_table, "thin_sass_split_h200.csv")],
    "instructor.md": [("MUTANTS TABLE", mutants_table, "mutants_h100.csv")],
    "lab7.md": [("LAB7 TABLE", lab7_table, BENCH_H200),
                ("BLOCK SHAPES TABLE", experiment_table, "lab7_block_shapes_h200.csv"),
                ("LAB7 SIZES TABLE", lambda p: variant_table(p, "7", [
                    ("f32", 4096, "ms"), ("f32", 8192, "ms"), ("f64", 8192, "ms"), ("f64", 8192, "ratio"),
                    ("f32", 16384, "pred"), ("f32", 32768, "ms"), ("f32", 32768, "ratio")]), BENCH_H200),
                ("LAB7 KERNELS TABLE", experiment_table, "lab7_kernels_h200.csv"),
                ("LAB7 EXPERIMENTS TABLE", experiment_table, "lab7_experiments_h200.csv")],
    "lab8.md": [("LAB8 TABLE", lab8_table, "plots/sample_bench.csv"),
                ("FILL TABLE", experiment_table, "lab8_fill_h200.csv"),
                ("DESIGNS TABLE", experiment_table, "lab8_designs_h200.csv"),
                ("EARLY READ TABLE", experiment_table, "lab8_early_read_h200.csv"),
                ("LOOKAHEAD TABLE", experiment_table, "lab8_lookahead_h200.csv")],
}


def replace(text, name, table):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    a, b = text.find(begin), text.find(end)
    if a < 0 or b < a:
        raise ValueError(f"markers {begin} ... {end} not found")
    return text[: a + len(begin)] + "\n" + table + "\n" + text[b:]


def check_table_rows(table):
    """Raises ValueError if a row of a Markdown table in `table` has another number of cells than
    the table's header (a row a generator cut short would otherwise render as a broken table)."""
    cells = lambda line: line.replace("\\|", "").count("|")
    header = None
    for line in table.splitlines():
        if line.endswith("|") and not line.startswith("|"):
            raise ValueError(f"a table row that does not start with a cell: {line}")
        if not line.startswith("|"):
            header = None
        elif header is None:
            header = cells(line)
        elif cells(line) != header:
            raise ValueError(f"a row of {cells(line) - 1} cells under a header of {header - 1}: {line}")


def generate(docs, out):
    """Writes every doc of TABLES, its tables regenerated from docs/data/, under out (all or none)."""
    texts = {}
    for md in sorted(docs.glob("*.md")):  # a marker pair no generator fills would go unchecked
        names = {name for name, _, _ in TABLES.get(md.name, [])}
        stray = [m for m in re.findall(r"<!-- BEGIN (.*? TABLE) -->", md.read_text()) if m not in names]
        if stray:
            raise ValueError(f"{md.name}: no generator in TABLES for " + ", ".join(stray))
    for doc, tables in TABLES.items():
        text = (docs / doc).read_text()
        for name, make_table, data in tables:
            try:
                csv_path = ROOT / data if "/" in data else docs / "data" / data
                table = make_table(csv_path)
                check_table_rows(table)
                text = replace(text, name, table)
            except (ValueError, KeyError) as e:
                raise ValueError(f"{doc}: {data}: {e}") from None
        texts[doc] = text
    for doc, text in texts.items():
        (out / doc).write_text(text)


PEER_COLUMNS = ["check", "median_ms", "min_ms", "max_ms", "gbps", "pct_copy", "copy_ms"]


def peers_of(bench_csv, out):
    """The library CSV (library_<gpu>.csv) of a `make bench` run: its peers' rows (lab 0), with
    the run's driver, CUDA and date from the .json beside the CSV."""
    meta = json.loads(Path(bench_csv).with_suffix(".json").read_text())
    rows = [r for r in read_rows(bench_csv) if r["lab"] == "0"]
    if not rows:
        raise ValueError(f"{bench_csv}: no peers' rows (lab 0)")
    # The types whose 32768² peers the run's budget skipped, in the run's order (f32, u8i32, f64).
    names = [type_label(t) for t in dict.fromkeys(s.split()[3] for s in meta.get("skipped", [])
                                                  if s.startswith("peers"))]
    listed = " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]
    skipped = f" (the run's time budget skipped 32768² in {listed})" if names else ""
    narrowed = " ".join(meta.get("narrowed_by", []))  # a run of fewer labs: bench.py's options
    run = f"`make bench BENCH_ARGS=\"{narrowed}\"`" if narrowed else "`make bench`"
    of = f" of {meta['source']}" if meta.get("source") else ""  # the commit bench.py ran
    source = (f"{run}{of} ({Path(bench_csv).relative_to(ROOT)}): the peers' rows, median of 20 to 4096², "
              f"10 at 8192², 16384² and the thin shapes, 5 at 32768²{skipped}")
    fields = ["gpu", "driver", "cuda", "date", "variant", "type", "rows", "cols"] + PEER_COLUMNS + ["source"]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({"gpu": r["device"], "driver": meta["driver"], "cuda": meta["cuda_driver_version"],
                        "date": meta["date"], "variant": r["variant"], "type": r["type"], "rows": r["rows"],
                        "cols": r["cols"], **{k: r[k] for k in PEER_COLUMNS}, "source": source})


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=Path, default=ROOT / "docs", help="the docs folder (default: docs/)")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 if a doc differs")
    ap.add_argument("--peers-of", nargs=2, metavar=("BENCH_CSV", "OUT"),
                    help="write the library CSV of a make bench run (its peers' rows) to OUT and stop")
    args = ap.parse_args(argv)
    try:
        if args.peers_of:
            peers_of(Path(args.peers_of[0]).resolve(), Path(args.peers_of[1]))
            return 0
        if not args.check:
            generate(args.docs, args.docs)
            print("wrote " + ", ".join(str(args.docs / d) for d in TABLES))
            return 0
        with tempfile.TemporaryDirectory() as tmp:
            generate(args.docs, Path(tmp))
            stale = [d for d in TABLES if not filecmp.cmp(args.docs / d, Path(tmp) / d, shallow=False)]
            for d in stale:
                print(f"library_tables: {args.docs / d} differs from what its CSV in "
                      f"{args.docs / 'data'} generates: edit the CSV and run make library-tables")
            return 1 if stale else 0
    except (OSError, ValueError, KeyError) as e:
        print(f"library_tables: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
