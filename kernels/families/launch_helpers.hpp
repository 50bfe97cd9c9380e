// Host-side helpers shared by kernel launchers: the device-side segment layouts, weight/bias
// mappings and epilogues of each op, built from a ProblemShape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/segment_access.cuh"
#include "kernels/problem_shape.hpp"
#include "kernels/registry.hpp"

namespace normbench::kernels {

// The float32 tensors of a classic problem's launch: all the registry hands the variants that
// accept nothing beyond the classic format (kernels/registry.hpp, Accepts).
inline const float* x_f32(const KernelArgs& args) {
  return static_cast<const float*>(args.x);
}
inline float* y_f32(const KernelArgs& args) {
  return static_cast<float*>(args.y);
}

inline RowParams row_params(const KernelArgs& args) {
  return {static_cast<const float*>(args.weight), static_cast<const float*>(args.bias)};
}

inline ChannelParams channel_params(const ProblemShape& p, const KernelArgs& args) {
  return {static_cast<const float*>(args.weight), static_cast<const float*>(args.bias), p.groups,
          p.channels / p.groups, p.spatial};
}

// The same mappings for every format: weight and bias of type P, either of them absent.
template <class P>
TypedRowParams<P> typed_row_params(const KernelArgs& args) {
  return {static_cast<const P*>(args.weight), static_cast<const P*>(args.bias)};
}

template <class P>
TypedChannelParams<P> typed_channel_params(const ProblemShape& p, const KernelArgs& args) {
  return {static_cast<const P*>(args.weight), static_cast<const P*>(args.bias), p.groups,
          p.channels / p.groups, p.spatial};
}

template <class P>
ChannelsLastParams<P> channels_last_params(const ProblemShape& p, const KernelArgs& args) {
  return {static_cast<const P*>(args.weight), static_cast<const P*>(args.bias), p.groups,
          p.channels / p.groups, p.spatial};
}

inline ChannelsLastSegments channels_last_segments(const ProblemShape& p) {
  return {p.groups, p.channels / p.groups, p.channels, p.spatial};
}

// The naive and general kernels use erff; the fast ones the branch-free polynomial erf.
inline GeluScaleErffEpilogue gelu_scale_erff(const ProblemShape& p) {
  return {static_cast<float>(p.scale)};
}
inline GeluScalePolyEpilogue gelu_scale_poly(const ProblemShape& p) {
  return {static_cast<float>(p.scale)};
}

}  // namespace normbench::kernels
