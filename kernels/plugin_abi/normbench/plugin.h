/* normbench plugin ABI: kernels built outside normbench, loaded from a shared library with
 * `normbench run --plugin PATH` (or a config's "plugins"), verified, isolated and timed like
 * normbench's own. Plain C types only, so that a plugin built with another compiler or C++
 * standard library loads; the ABI version is checked when the library is loaded.
 *
 * A plugin defines, in one of its source files:
 *
 *   #include <normbench/plugin.h>
 *   NORMBENCH_PLUGIN_ABI_VERSION_FUNCTION
 *   NORMBENCH_PLUGIN_EXPORT int normbench_plugin_register(const nb_registrar* r) {
 *     nb_kernel k = {NB_OP_LAYER_NORM, "layer_norm.mine", "what it does",
 *                    my_unsupported, my_workspace_bytes, my_launch};
 *     return r->add_kernel(r->context, &k);  // 0 on success
 *   }
 *
 * Ids are "<op>.<name>" (e.g. layer_norm.mine) and must not be registered already. normbench
 * copies what add_kernel is given. The callbacks run in normbench's device worker process; a
 * crash there is the kernel's, not the run's. Registration runs in normbench's own process.
 *
 * Versions: a plugin reports the NORMBENCH_PLUGIN_ABI_VERSION of the header it was built
 * against, and normbench loads every version from 1 to its own. Structs only grow at their
 * end, so what an older plugin reads of them is unchanged. Version 2 added the backward ops
 * of layer_norm, rms_norm and group_norm (7 to 9) and the fields of nb_args after `stream`;
 * version 3 added add_rms_norm_backward (10) and nb_args's `ds_out`. A plugin may register
 * kernels of the ops its version knows only: version 1, 0 to 6; version 2, 0 to 9. */
#ifndef NORMBENCH_PLUGIN_H
#define NORMBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define NORMBENCH_PLUGIN_ABI_VERSION 3u

#ifdef __cplusplus
#define NORMBENCH_EXTERN_C extern "C"
#else
#define NORMBENCH_EXTERN_C
#endif
#define NORMBENCH_PLUGIN_EXPORT NORMBENCH_EXTERN_C __attribute__((visibility("default")))

/* The operations, as in configs ("op"). New ops are added at the end and the numbers never
 * change, so that a plugin built against an older header loads unchanged. */
typedef enum {
  NB_OP_LAYER_NORM = 0,
  NB_OP_GROUP_NORM = 1,
  NB_OP_LAYER_NORM_GELU_SCALE = 2,
  NB_OP_RMS_NORM = 3,         /* y = x / sqrt(mean(x^2) + eps) * weight; no bias */
  NB_OP_ADD_RMS_NORM = 4,     /* s = x + residual (written to args->sum), y = rms_norm(s) */
  NB_OP_CHANNEL_RMS_NORM = 5, /* RMSNorm over dim 1 of contiguous NCHW x, per (sample,
                               * position): y = x / sqrt(mean over C of x^2 + eps) * weight[c];
                               * no bias. A segment's C elements lie `spatial` apart. */
  NB_OP_GROUP_NORM_SILU = 6,  /* y = silu(group_norm(x)), silu(v) = v / (1 + exp(-v)): the
                               * geometry, formats and layouts of group_norm */
  /* The gradients of layer_norm, rms_norm and group_norm (ABI version 2): the forward op's
   * geometry, formats and layouts; they read x, dy, weight and the saved statistics and write
   * dx (args->y), dweight and dbias (see nb_args). */
  NB_OP_LAYER_NORM_BACKWARD = 7,
  NB_OP_RMS_NORM_BACKWARD = 8,
  NB_OP_GROUP_NORM_BACKWARD = 9,
  /* The gradient of add_rms_norm (ABI version 3): args->x holds s, the sum the forward wrote;
   * dx (args->y) is rms_norm_backward's dx of s plus args->ds_out, and is the gradient of both
   * x and residual; dweight as rms_norm_backward's. */
  NB_OP_ADD_RMS_NORM_BACKWARD = 10
} nb_op;

/* Element types ("dtype", "param_dtype"): kernels accumulate in float32 whatever the type. */
typedef enum { NB_DTYPE_FLOAT32 = 0, NB_DTYPE_BFLOAT16 = 1, NB_DTYPE_FLOAT16 = 2 } nb_dtype;

/* How a GroupNorm's x and y lie in memory ("layout"); every other op is contiguous. */
typedef enum { NB_LAYOUT_NCHW = 0, NB_LAYOUT_NHWC = 1 } nb_layout;

/* One problem's geometry. Every op normalizes segments of x: a row (the trailing normalized
 * dims), a GroupNorm group (C/G channels times the spatial dims) or, for channel_rms_norm, the
 * C channels of one (sample, spatial position). In the logical order (row-major over shape,
 * NCHW) element i of x uses parameter (i / spatial) % channels (GroupNorm, channel_rms_norm)
 * or i % segment_size (the row ops). A channels-last GroupNorm stores x and y as
 * (N, spatial..., C): there memory index i is channel i % channels. A kernel that does not
 * handle a problem's op, dtype, layout or affine flags declines it in `unsupported`; normbench
 * hands plugins every problem of their op. */
typedef struct {
  int32_t op;           /* nb_op */
  int32_t ndim;         /* dims of x */
  const int64_t* shape; /* x's shape, row-major contiguous */
  int64_t num_elements;
  int64_t num_segments; /* rows, N * groups, or N * spatial (channel_rms_norm) */
  int64_t segment_size; /* elements normalized together (channel_rms_norm: C) */
  int64_t groups;       /* group_norm, group_norm_silu: G; else 0 */
  int64_t channels;     /* group_norm(_silu), channel_rms_norm: C; else 0 */
  int64_t spatial;      /* group_norm(_silu), channel_rms_norm: product of shape[2:]; else 1 */
  int64_t param_size;   /* elements of weight and of bias */
  double eps;
  double scale;        /* layer_norm_gelu_scale: the output is multiplied by it; else 1 */
  int32_t affine;      /* 1: a weight is given; 0: weight (and bias) are null. Backward ops:
                        * and dweight is an output */
  int32_t dtype;       /* nb_dtype of x, residual, y and sum; dy, ds_out and dx */
  int32_t param_dtype; /* nb_dtype of weight and bias; dweight and dbias: dtype or float32 */
  int32_t layout;      /* nb_layout; NB_LAYOUT_NCHW for every op but the GroupNorm ops */
  int32_t has_bias;    /* 1: a bias is given (only with a weight; never for the RMSNorm ops).
                        * Backward ops: dbias is an output (the bias itself is not given) */
} nb_problem;

/* The device the kernel will run on. */
typedef struct {
  int32_t sm_count;
  int32_t cc_major;
  int32_t cc_minor;
  int32_t max_threads_per_sm;
  uint64_t shared_memory_per_block_optin;
  uint64_t shared_memory_per_sm;
  int32_t cooperative_launch; /* 1 if supported */
} nb_device;

/* Device pointers and the stream (a cudaStream_t) of one launch. Every pointer is 256-byte
 * aligned; the workspace has the bytes the kernel asked for and holds garbage on entry. All
 * work must be enqueued on `stream`: work left on another stream fails the kernel. */
typedef struct {
  const void* x;
  const void* residual; /* add_rms_norm: of x's shape and dtype; else null */
  const void* weight;   /* null when !affine */
  const void* bias;     /* null when !has_bias, and for the backward ops */
  void* y;              /* the output; the backward ops: dx, of x's shape, dtype and layout */
  void* sum;            /* add_rms_norm: where s = x + residual goes; else null */
  void* workspace;
  void* stream;
  /* ABI version 2: the backward ops' tensors; null for the forward ops. */
  const void* dy;    /* the gradient of y: x's shape, dtype and layout */
  const void* mean;  /* float32, one per segment (rows, or (N, groups)); null for RMSNorm */
  const void* rstd;  /* float32, one per segment: 1 / sqrt(var + eps). mean and rstd are the
                      * exact statistics of x rounded once to float32; a kernel may use them or
                      * recompute them from x */
  void* grad_weight; /* dweight: param_size elements of param_dtype; null when !affine */
  void* grad_bias;   /* dbias: likewise; null when !has_bias */
  /* ABI version 3: add_rms_norm_backward's ds_out, the gradient flowing into the forward's s
   * output (x's shape and dtype), which dx adds; null for every other op. */
  const void* ds_out;
} nb_args;

typedef struct {
  int32_t op;              /* nb_op */
  const char* id;          /* "<op>.<name>" */
  const char* description; /* one line */
  /* Returns 0 if the kernel supports the problem; otherwise non-zero with a reason written
   * into `reason` (at most reason_size bytes, NUL-terminated). May be null: all supported. */
  int (*unsupported)(const nb_problem* problem, const nb_device* device, char* reason,
                     size_t reason_size);
  /* Scratch device memory the kernel needs. May be null: none. */
  size_t (*workspace_bytes)(const nb_problem* problem, const nb_device* device);
  /* Enqueues the kernel on args->stream; returns a cudaError_t (0: success). */
  int (*launch)(const nb_problem* problem, const nb_device* device, const nb_args* args);
} nb_kernel;

typedef struct {
  uint32_t abi_version; /* NORMBENCH_PLUGIN_ABI_VERSION of the normbench that loads the plugin */
  void* context;
  /* Returns 0 when the kernel was taken, else non-zero (the plugin is then refused). */
  int (*add_kernel)(void* context, const nb_kernel* kernel);
} nb_registrar;

/* The two symbols a plugin exports. */
#define NORMBENCH_PLUGIN_ABI_VERSION_FUNCTION                           \
  NORMBENCH_PLUGIN_EXPORT uint32_t normbench_plugin_abi_version(void) { \
    return NORMBENCH_PLUGIN_ABI_VERSION;                                \
  }
typedef uint32_t (*nb_abi_version_function)(void);
typedef int (*nb_register_function)(const nb_registrar* registrar);

#endif /* NORMBENCH_PLUGIN_H */
