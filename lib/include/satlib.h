/* satlib.h: the C ABI of the SAT library (summed-area tables on an NVIDIA GPU).
 *
 * One entry point computes, for every image b of a batch,
 *     out[b](i, j)    = sum of in[b](i', j')   over i' <= i, j' <= j
 *     sq_out[b](i, j) = sum of in[b](i', j')^2 over i' <= i, j' <= j   (optional)
 * in one pass that reads the input once, squared table included (sums in place, or thin
 * images, with squares: two launches). The whole batch is one kernel launch (one image of
 * one contiguous line: CUB's 1-D scan, two kernels; one u8 -> i32 image of 2 or 3 rows of whole
 * words: CUB's scan of the rows packed, two kernels, or for 2 rows from 20,000,000 wide a CUB scan
 * per row, two kernels each; one u8 -> i32 image of 2 or 3 contiguous columns, rows a multiple of
 * 4: CUB's scan of the columns packed, two kernels; one f32, f64 or i32 image, the same type in
 * and out, of 2 or 3 rows narrower than 2 MiB a row: CUB's scan of element lanes, a column of the
 * rows to an item, two kernels; one f32 or i32 image of 2 rows from 2 MiB a row, cols and pitches
 * multiples of 4, 16-byte aligned: CUB's scan of group lanes, 4 columns to an item, two kernels).
 * The C++ API (sat.hpp) is the typed face of the same code; this
 * header is what the Python package binds with ctypes.
 *
 * Conventions: device pointers; pitches and batch strides counted in ELEMENTS of their own
 * array; rows x cols is the input's shape (the NPP layout makes outputs (rows+1) x (cols+1));
 * `stream` is a cudaStream_t (0 = the legacy default stream). satlib_integral, satlib_box and
 * satlib_wait return SATLIB_OK or an error code; satlib_error_string() turns it into one line.
 * satlib_last_timeout returns 1 or 0, not a status.
 * Scratch is stream-ordered (cudaMallocAsync from the current device's memory pool); a release
 * threshold of 0 on that pool (the CUDA default) is raised to 256 MiB, so that freed scratch
 * stays mapped across synchronizations instead of being mapped again on every call.
 * Host threads may call at once, on one device or on several (each call works on the calling
 * thread's current device); what does not change between calls (the kernels' shared memory
 * limits and resident blocks) is set or asked once per device and kept.
 */
#ifndef SATLIB_H
#define SATLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SATLIB_U8 = 0,
    SATLIB_U16 = 1,
    SATLIB_I32 = 2,
    SATLIB_F32 = 3,
    SATLIB_F64 = 4
} satlib_dtype;

/* Supported (input -> output) pairs: f32->f32, f64->f64, i32->i32, u8->i32, u8->f32,
 * u16->f64, f32->f64. The squared-sum table has the output's type. */

typedef enum {
    SATLIB_LAYOUT_SAME = 0, /* out is rows x cols */
    SATLIB_LAYOUT_NPP = 1   /* out is (rows+1) x (cols+1), first row and column zero (NPP/OpenCV) */
} satlib_layout;

typedef enum {
    SATLIB_OK = 0,
    SATLIB_ERR_ARGUMENT = 1,     /* a null pointer, a bad shape, pitch or stride */
    SATLIB_ERR_TYPE = 2,         /* an unsupported (input, output) type pair */
    SATLIB_ERR_NO_DEVICE = 3,    /* no CUDA device or driver */
    SATLIB_ERR_OUT_OF_MEMORY = 4,
    SATLIB_ERR_TIMEOUT = 5,      /* a tile waited too long for another: the output is incomplete */
    SATLIB_ERR_CUDA = 6          /* any other CUDA error (satlib_error_string says which) */
} satlib_status;

typedef struct {
    const void* in; satlib_dtype in_type; size_t in_pitch; size_t in_batch_stride;
    void* out; satlib_dtype out_type; size_t out_pitch; size_t out_batch_stride;
    void* sq_out; size_t sq_pitch; size_t sq_batch_stride; /* sq_out NULL: no squares */
    int batch; int rows; int cols;                         /* batch >= 1, rows, cols >= 1 */
    satlib_layout layout;
} satlib_integral_args;

/* The integral image (and optionally the squared one). in == out (in place) is allowed with the
 * same element size, pitch and batch stride in the plain layout; any other overlap of the input
 * and an output is refused (SATLIB_ERR_ARGUMENT). Synchronous error checking of the
 * arguments; the kernel runs asynchronously on `stream`. SATLIB_ERR_TIMEOUT is returned when the
 * kernel's spin timed out: to be able to say so, this call waits for `stream` when
 * `check_timeout` is non-zero (the Python package passes 1 unless wait=False; C++ callers who
 * want no host synchronization pass 0 and may read the status later with satlib_last_timeout).
 * On a stream being captured into a CUDA graph, which cannot wait, a non-zero `check_timeout` is
 * refused before any work (SATLIB_ERR_CUDA, cudaErrorStreamCaptureUnsupported). */
int satlib_integral(const satlib_integral_args* args, void* stream, int check_timeout);

typedef enum { SATLIB_BOX_SUM = 0, SATLIB_BOX_MEAN = 1, SATLIB_BOX_VARIANCE = 2 } satlib_box_op;

/* Box filters over a (2r+1) x (2r+1) window centred on each pixel, clipped at the image border
 * (a mean or variance divides by the number of pixels inside the clipped window). in: any input
 * type above; out: f32 or f64 (the same shape as in), not overlapping in (else
 * SATLIB_ERR_ARGUMENT). Built on satlib_integral. */
int satlib_box(const void* in, satlib_dtype in_type, size_t in_pitch, size_t in_batch_stride,
               void* out, satlib_dtype out_type, size_t out_pitch, size_t out_batch_stride,
               int batch, int rows, int cols, int radius, satlib_box_op op, void* stream);

/* 1 if a kernel launched on any stream by this library timed out since the last call: of a call
 * with check_timeout (which also returned SATLIB_ERR_TIMEOUT) or without it (unless satlib_wait
 * has reported it since), else 0 (not a satlib_status). It waits for the whole device, which a
 * stream capture anywhere forbids: where it cannot wait (no device, or the synchronization fails,
 * as under a capture) it reports only the timeouts that checking calls returned. */
int satlib_last_timeout(void);

/* Waits for `stream`, then SATLIB_ERR_TIMEOUT if a kernel of a call without `check_timeout`
 * (satlib_integral with 0, satlib_box) timed out since the last look (this call or
 * satlib_last_timeout), else SATLIB_OK. The word it reads and clears is the library's on the
 * current device, not the stream's: it holds the timeouts of every call on `stream` before this
 * one and of the calls on other streams whose kernels have finished. `stream` must belong to the
 * current device. It waits for `stream` only, so it runs while another stream is being captured
 * into a CUDA graph; on a stream being captured it is refused (SATLIB_ERR_CUDA,
 * cudaErrorStreamCaptureUnsupported), as on the legacy default stream (0) while any other stream
 * is. A CUDA error while it reads the word (the copy or the wait after it takes and clears the
 * word) is returned instead, and the timeouts the word held are not reported again. Since 1.1.0. */
int satlib_wait(void* stream);

const char* satlib_error_string(int status);
const char* satlib_version(void);

#ifdef __cplusplus
}
#endif
#endif /* SATLIB_H */
