// Launchers of naive_kernel; each op's naive.cu calls one with its epilogue (group_norm/naive.cu
// picks the segments and parameters of its layout itself).
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

template <class T, Norm kNorm, class Segments, class Params, class Epilogue>
cudaError_t launch_naive_as(const ProblemShape& p, const KernelArgs& args, Segments segments,
                            Params params, Epilogue epilogue) {
  naive_kernel<T, kNorm><<<static_cast<unsigned>(p.num_segments), kNaiveThreads, 0, args.stream>>>(
      static_cast<const T*>(args.x), static_cast<T*>(args.y), params, epilogue, p.segment_size,
      p.eps, segments, static_cast<const T*>(args.residual), static_cast<T*>(args.sum));
  return cudaGetLastError();
}

// Rows of LayerNorm (kNorm centered, any epilogue), RMSNorm (rms) and add_rms_norm (add_rms).
template <Norm kNorm, class Epilogue>
cudaError_t launch_naive_rows(const ProblemShape& p, const KernelArgs& args, Epilogue epilogue) {
  const ContiguousSegments rows;
  if constexpr (kNorm == Norm::centered) {
    // float32 with weight and bias or neither: the instantiation of the committed results.
    if (p.is_classic())
      return launch_naive_as<float, kNorm>(p, args, rows, row_params(args), epilogue);
  }
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    return launch_naive_as<T, kNorm>(p, args, rows, typed_row_params<P>(args), epilogue);
  });
}

}  // namespace normbench::kernels
