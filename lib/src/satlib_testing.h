// satlib_testing.h — what the library's own tests (lib/tests/) may ask about its launches; not
// installed, not part of the API.
#pragma once

namespace satlib {
namespace testing {

// How the last thin call ran: the chunks (sat::thin::scan), CUB's scan of one line, or a u8 -> i32
// image of 2 or 3 rows in words as CUB's scan per row or its one scan of packed rows, or of 2 or
// 3 contiguous columns as its one scan of packed columns; packed_rows also for an f32, f64 or i32
// image of 2 or 3 rows in element lanes; group_rows for an f32 or i32 image of 2 rows in group
// lanes; none after a 2-D launch.
enum class ThinPath { none, chunks, line, rows, packed_rows, packed_columns, group_rows };

struct LaunchLog {
    unsigned long long scans;       // SAT kernel launches (2-D and thin) since the program started
    unsigned long long last_tiles;  // the last 2-D launch's tiles, all images (thin: 0)
    unsigned last_grid;             // and its blocks (thin: 0)
    int last_resident;              // and the blocks of its kernel resident at once (0: a grid the caller set, or thin)
    int last_threads;               // and its threads per block, i.e. the tile shape's (thin: 0)
    bool last_overlapped;           // and whether it started while clear_flags ran (thin: false)
    int last_ptx_version;           // and its kernel's PTX version on the device, as the library
                                    // keeps it (90: sm_90; 0: not asked yet, or no device slot;
                                    // thin: 0); asked only by a launch that clears its flags
    bool last_vector;               // and whether it took the vector accesses, whole pieces (thin: false)
    ThinPath last_thin_path;
    int last_tile_rows;             // and the rows R of its tiles (thin: 0)
    bool last_aggregates_only;      // and whether its tiles added up the aggregates of every tile
                                    // left and above instead of looking back (thin: false)
    int last_aggregate_group_rows;  // and, if it did, the tile rows of the groups whose column sums
                                    // it added as one (sum_aggregates; else 0)
};
LaunchLog launch_log();
unsigned long long box_launches();  // box filter kernel launches since the program started

}  // namespace testing
}  // namespace satlib
