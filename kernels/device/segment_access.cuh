// Where a segment's elements and its weight/bias lie, for every format a problem may have: the
// naive and general kernels walk a segment by position 0..segment_size-1 and ask these
// helpers for the memory of each position.
//
// Segments: contiguous ones (rows, NCHW groups) are a pointer; a channels-last GroupNorm group
// is a strided view. Its positions run channel-fastest (position = spatial index * Cg +
// channel in the group), so that consecutive positions are consecutive in memory within each
// run of Cg channels; the sums do not care about the order.
//
// Parameters: weight and bias of type P (the data's type or float32), each of which may be
// absent (no weight: 1, no bias: 0). The float32 weight-and-bias mappings of the classic
// problems are RowParams and ChannelParams (device_math.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/element_types.cuh"

namespace normbench::kernels {

// Rows and NCHW groups: segment s is elements [s * segment_size, (s + 1) * segment_size).
struct ContiguousSegments {
  template <class T>
  __device__ __forceinline__ T* segment(T* data, int64_t s, int64_t segment_size) const {
    return data + s * segment_size;
  }
};

// Position `pos` of a channels-last group: (spatial index pos / Cg, channel pos % Cg). The
// division is in 32 bits when the group's positions fit (4x cheaper than in 64).
struct ChannelsLastPosition {
  int64_t channels_per_group;
  bool narrow;

  __device__ __forceinline__ void split(int64_t pos, int64_t& spatial_index,
                                        int64_t& channel) const {
    if (narrow) {
      const auto p = static_cast<uint32_t>(pos);
      const auto cpg = static_cast<uint32_t>(channels_per_group);
      const uint32_t s = p / cpg;
      spatial_index = s;
      channel = p - s * cpg;
    } else {
      spatial_index = pos / channels_per_group;
      channel = pos - spatial_index * channels_per_group;
    }
  }
};

// Channels-last GroupNorm: logical x[n][c][s] lives at n * spatial * C + s * C + c.
struct ChannelsLastSegments {
  int64_t groups;
  int64_t channels_per_group;
  int64_t channels;
  int64_t spatial;

  // Indexes one group like a pointer: view + pos, view[pos].
  template <class T>
  struct View {
    T* base;  // the group's first channel at spatial index 0
    int64_t channels;
    ChannelsLastPosition position;

    __device__ __forceinline__ T* operator+(int64_t pos) const {
      int64_t s, c;
      position.split(pos, s, c);
      return base + s * channels + c;
    }
    __device__ __forceinline__ T& operator[](int64_t pos) const { return *(*this + pos); }
  };

  template <class T>
  __device__ __forceinline__ View<T> segment(T* data, int64_t s, int64_t /*segment_size*/) const {
    const int64_t n = s / groups, g = s % groups;
    return {data + n * spatial * channels + g * channels_per_group,
            channels,
            {channels_per_group, channels_per_group * spatial <= int64_t{0xffffffff}}};
  }
};

// One element through the read-only path, widened to float. The 16-bit types are loaded as
// their bits: cuda_bf16's and cuda_fp16's __ldg overloads left an 8-16 byte stack frame in
// the naive kernels.
__device__ __forceinline__ float load_readonly(const float* p) {
  return __ldg(p);
}
__device__ __forceinline__ float load_readonly(const __nv_bfloat16* p) {
  return __bfloat162float(__ushort_as_bfloat16(__ldg(reinterpret_cast<const unsigned short*>(p))));
}
__device__ __forceinline__ float load_readonly(const __half* p) {
  return __half2float(__ushort_as_half(__ldg(reinterpret_cast<const unsigned short*>(p))));
}

// A parameter of type P widened to float, or `absent` where the tensor is not given.
template <class P>
__device__ __forceinline__ float param_or(const P* p, int64_t i, float absent) {
  return p ? load_readonly(p + i) : absent;
}

// weight/bias per element of a row.
template <class P>
struct TypedRowParams {
  const P* weight;
  const P* bias;

  struct Segment {
    const P* weight;
    const P* bias;
    __device__ __forceinline__ float2 at(int64_t pos) const {
      return make_float2(param_or(weight, pos, 1.f), param_or(bias, pos, 0.f));
    }
  };
  __device__ __forceinline__ Segment for_segment(int64_t) const { return {weight, bias}; }
};

// weight/bias per channel of NCHW groups: position pos of group `segment` lies in channel
// (segment % groups) * channels_per_group + pos / spatial.
template <class P>
struct TypedChannelParams {
  const P* weight;
  const P* bias;
  int64_t groups;
  int64_t channels_per_group;
  int64_t spatial;

  struct Segment {
    const P* weight;  // at the group's first channel
    const P* bias;
    int64_t spatial;
    bool narrow;  // positions fit in 32 bits: divide in 32 bits
    __device__ __forceinline__ float2 at(int64_t pos) const {
      const int64_t c =
          narrow ? static_cast<uint32_t>(pos) / static_cast<uint32_t>(spatial) : pos / spatial;
      return make_float2(param_or(weight, c, 1.f), param_or(bias, c, 0.f));
    }
  };
  __device__ __forceinline__ Segment for_segment(int64_t segment) const {
    const int64_t first = (segment % groups) * channels_per_group;
    return {weight ? weight + first : nullptr, bias ? bias + first : nullptr, spatial,
            channels_per_group * spatial <= int64_t{0xffffffff}};
  }
};

// weight/bias per channel of channels-last groups, in ChannelsLastSegments' position order.
template <class P>
struct ChannelsLastParams {
  const P* weight;
  const P* bias;
  int64_t groups;
  int64_t channels_per_group;
  int64_t spatial;

  struct Segment {
    const P* weight;  // at the group's first channel
    const P* bias;
    ChannelsLastPosition position;
    __device__ __forceinline__ float2 at(int64_t pos) const {
      int64_t s, c;
      position.split(pos, s, c);
      return make_float2(param_or(weight, c, 1.f), param_or(bias, c, 0.f));
    }
  };
  __device__ __forceinline__ Segment for_segment(int64_t segment) const {
    const int64_t first = (segment % groups) * channels_per_group;
    return {weight ? weight + first : nullptr,
            bias ? bias + first : nullptr,
            {channels_per_group, channels_per_group * spatial <= int64_t{0xffffffff}}};
  }
};

}  // namespace normbench::kernels
