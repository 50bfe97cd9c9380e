// Between the harness's tensors and the device's bytes. The harness keeps every tensor as
// floats in the logical order (row-major over the problem's shape, NCHW for GroupNorm): the
// reference, verification, tensor dumps and fingerprints of inputs all read that. On the device
// a tensor has its problem's element type and layout: bfloat16/float16 encodings, and for a
// channels-last GroupNorm x and y stored as (N, spatial..., C). Low-precision values widen to
// float exactly, so encoding and decoding lose nothing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "app/inputs/host_tensor.hpp"
#include "kernels/problem_shape.hpp"

namespace normbench {

struct TensorFormat {
  DType dtype = DType::float32;
  bool channels_last = false;  // shape (N, C, spatial...) stored as (N, spatial..., C)
  // The device bytes are the host floats themselves: no copy is needed either way.
  bool is_identity() const { return dtype == DType::float32 && !channels_last; }
};

size_t encoded_bytes(int64_t count, const TensorFormat& format);

// Rounds every element to the nearest value of `dtype` (ties to even), in place.
void round_tensor(HostTensor& tensor, DType dtype, int threads);

// Writes `tensor` (values representable in format.dtype) as device bytes into `out`, which
// holds encoded_bytes(tensor.size, format).
void encode_tensor(const HostTensor& tensor, const TensorFormat& format, void* out, int threads);
// Reads device bytes back into `tensor` (of the logical shape).
void decode_tensor(const void* in, const TensorFormat& format, HostTensor& tensor, int threads);

}  // namespace normbench
