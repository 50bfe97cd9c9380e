// How the backward row kernels (families/wide_rows_backward.cuh: `<op>_backward.row_in_registers`)
// lay a row over a block and how many blocks share the rows, decided on the host once per
// problem, so that support, launch shape and workspace are tested on the CPU.
//
// A block holds one row of x and one of dy in registers as 16-byte vectors: thread t holds
// vectors t and t + threads (16-bit data) or t, t + threads, ..., t + 3 threads (float32), so
// that every thread owns kWideRowsBackwardColumns = 16 columns of the row, whatever the type, and
// keeps their dweight and dbias partial sums in float registers across all its rows. Up to 512
// threads: rows of at most 8192 elements. LLM hidden sizes split evenly: 4096 bf16 = 512 vectors
// = 256 threads x 2, 5120 = 320 x 2, 8192 = 512 x 2.
//
// A fixed grid of `blocks` blocks walks the rows (block b takes rows b, b + blocks, ...): at
// most kWideRowsBackwardBlocksPerSm per SM (the launch takes fewer where fewer fit at once),
// each writing its partial dweight and dbias to the workspace, summed per column in a fixed
// order by a second kernel. So the output has the same bits every launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/problem_shape.hpp"

namespace normbench::kernels {

constexpr int kWideRowsBackwardColumns = 16;  // per thread: 2 vectors of 16-bit, 4 of float32
constexpr int kWideRowsBackwardMaxThreads = 512;
constexpr int64_t kWideRowsBackwardMaxRow =
    int64_t{kWideRowsBackwardMaxThreads} * kWideRowsBackwardColumns;
// An upper bound on the blocks of the grid, and so on the workspace: the launch takes
// min(this, what the occupancy calculator says fits at once) per SM.
constexpr int kWideRowsBackwardBlocksPerSm = 4;

struct WideRowsBackwardPlan {
  std::string unsupported;     // empty: supported
  int vector_elements = 0;     // elements of the data's type in 16 bytes: 8 or 4
  int row_vectors = 0;         // 16-byte vectors per row
  int vectors_per_thread = 0;  // 2 (16-bit data) or 4 (float32)
  int threads = 0;             // per block, a multiple of 32
  int max_blocks = 0;          // the grid is at most this: min(rows, blocks per SM x SMs)
  // The partials: max_blocks rows of param_size floats for dweight, as many for dbias (when
  // there is a bias); 0 without a weight (dx alone).
  size_t workspace_bytes = 0;
};

WideRowsBackwardPlan plan_wide_rows_backward(const ProblemShape& p, int sm_count);

}  // namespace normbench::kernels
