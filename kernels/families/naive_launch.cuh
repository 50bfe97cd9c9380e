// Launcher of naive_kernel; each op's naive.cu instantiates it with its params and epilogue.
#pragma once

#include <limits>

#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/naive_kernel.cuh"

namespace normbench::kernels {

inline std::optional<std::string> naive_unsupported(const ProblemShape& p, const DeviceCaps&) {
  if (p.num_segments > std::numeric_limits<int>::max())
    return "more than 2^31-1 segments (one block each)";
  return std::nullopt;
}

template <class Params, class Epilogue>
cudaError_t launch_naive(const ProblemShape& p, const KernelArgs& args, Params params,
                         Epilogue epilogue) {
  naive_kernel<<<static_cast<unsigned>(p.num_segments), kNaiveThreads, 0, args.stream>>>(
      x_f32(args), y_f32(args), params, epilogue, p.segment_size, p.eps);
  return cudaGetLastError();
}

}  // namespace normbench::kernels
