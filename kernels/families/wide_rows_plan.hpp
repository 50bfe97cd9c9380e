// How the wide-rows kernels (families/wide_rows.cuh: `<op>.row_in_registers`) lay a row over a
// block, decided on the host once per problem, so that support and launch shape are tested on
// the CPU.
//
// A block holds one row in registers as 16-byte vectors (8 bfloat16/float16 or 4 float32):
// thread t holds vectors t, t + threads, ..., vectors_per_thread of them. Four vectors (64
// bytes in flight per thread) while that takes at most 256 threads, else eight, up to 512
// threads: rows of up to 4096 vectors, 32768 16-bit or 16384 float32 elements. LLM hidden sizes
// split evenly: 4096 bf16 = 512 vectors = 128 threads x 4, 5120 = 640 = 160 x 4, 8192 = 1024
// = 256 x 4. Where every row's block starts at once, two vectors a thread (below).
#pragma once

#include <cstdint>
#include <string>

#include "kernels/problem_shape.hpp"

namespace normbench::kernels {

// Rows that all start at once (a decoder's few tokens) wait on latency: there two vectors a
// thread, twice the threads, halve each thread's chain of loads, unpacking and sums (0.2 us
// of 4.7-5.1 on 1-128 rows of 4096 and 8192 on the H100: scripts/probes/wide_rows_vectors.cu,
// kernels/NOTES.md).
constexpr int kWideRowsLatencyVectors = 2;  // per thread, rows all resident, <= 512 threads
constexpr int kWideRowsFewVectors = 4;      // per thread, while a row needs <= 256 threads
constexpr int kWideRowsManyVectors = 8;     // per thread, up to 512 threads
constexpr int kWideRowsMaxThreads = 512;
constexpr int64_t kWideRowsMaxVectors = int64_t{kWideRowsMaxThreads} * kWideRowsManyVectors;

// How the two-vector kernel of rows that all start at once is compiled (families/wide_rows.cuh),
// chosen per problem from the device's occupancy (pick_latency_form):
//   exact_fit    the row is exactly threads x 2 vectors: no bounds checks, so ptxas issues every
//                load of a thread back to back (0.05-0.3 us less device time on most of
//                configs/decode.json on the H100), at up to 15 more registers a thread;
//   guarded      bounds checks on every vector: fewer registers;
//   four_blocks  guarded, under launch bounds that leave 32 registers a thread, so that four
//                blocks of 512 threads share an SM (rows of 8192 16-bit elements at 512 rows
//                start in one wave instead of two: 0.5-1.5 us less; kernels/NOTES.md).
enum class WideRowsForm { guarded, exact_fit, four_blocks };

// The first form of exact_fit, guarded, four_blocks that holds `blocks_needed` blocks an SM (as
// the device reports for each kernel; 0 for exact_fit where the row does not fit exactly), so
// that every row's block still starts at once.
WideRowsForm pick_latency_form(int64_t blocks_needed, int exact_fit_per_sm, int guarded_per_sm);

struct WideRowsPlan {
  std::string unsupported;     // empty: supported
  int vector_elements = 0;     // elements of the data's type in 16 bytes: 8 or 4
  int row_vectors = 0;         // 16-byte vectors per row
  int vectors_per_thread = 0;  // kWideRowsLatencyVectors, kWideRowsFewVectors or ...Many...
  int threads = 0;             // per block, a multiple of 32
  WideRowsForm form = WideRowsForm::guarded;  // of the two-vector kernel (pick_latency_form)
};

// `rows_resident`: every row's block starts at once (kWideRowsLatencyVectors where they fit).
WideRowsPlan plan_wide_rows(const ProblemShape& p, bool rows_resident = false);

}  // namespace normbench::kernels
