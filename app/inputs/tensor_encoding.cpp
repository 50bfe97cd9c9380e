#include "app/inputs/tensor_encoding.hpp"

#include <cstring>

#include "reference/low_precision.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
constexpr int64_t kChunk = 1 << 20;

// Memory index of logical element i: the identity, or (n, c, s) -> (n, s, c) for channels-last.
struct MemoryOrder {
  bool channels_last = false;
  int64_t channels = 1;
  int64_t spatial = 1;

  MemoryOrder(const HostTensor& t, bool cl) : channels_last(cl && t.shape.size() >= 2) {
    if (!channels_last) return;
    channels = t.shape[1];
    for (size_t d = 2; d < t.shape.size(); ++d) spatial *= t.shape[d];
  }
  int64_t operator()(int64_t i) const {
    if (!channels_last) return i;
    const int64_t s = i % spatial;
    const int64_t c = (i / spatial) % channels;
    const int64_t n = i / (spatial * channels);
    return (n * spatial + s) * channels + c;
  }
};

template <class Body>
void for_each_element(int64_t count, int threads, Body&& body) {
  parallel_for_chunks(
      count, kChunk,
      [&](int64_t, int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) body(i);
      },
      threads);
}
}  // namespace

size_t encoded_bytes(int64_t count, const TensorFormat& format) {
  return static_cast<size_t>(count * dtype_bytes(format.dtype));
}

void round_tensor(HostTensor& tensor, DType dtype, int threads) {
  if (dtype == DType::float32) return;
  float* data = tensor.begin();
  for_each_element(tensor.size, threads, [&](int64_t i) {
    data[i] = round_to_dtype(static_cast<double>(data[i]), dtype);
  });
}

void encode_tensor(const HostTensor& tensor, const TensorFormat& format, void* out, int threads) {
  const float* in = tensor.begin();
  if (format.is_identity()) {
    if (static_cast<const void*>(in) != out) std::memcpy(out, in, tensor.bytes());
    return;
  }
  const MemoryOrder at(tensor, format.channels_last);
  switch (format.dtype) {
    case DType::float32:
      for_each_element(tensor.size, threads,
                       [&](int64_t i) { static_cast<float*>(out)[at(i)] = in[i]; });
      return;
    case DType::bfloat16:
      for_each_element(tensor.size, threads, [&](int64_t i) {
        static_cast<uint16_t*>(out)[at(i)] = bfloat16_bits(in[i]);
      });
      return;
    case DType::float16:
      for_each_element(tensor.size, threads, [&](int64_t i) {
        static_cast<uint16_t*>(out)[at(i)] = float16_bits(in[i]);
      });
      return;
  }
}

void decode_tensor(const void* in, const TensorFormat& format, HostTensor& tensor, int threads) {
  float* out = tensor.begin();
  if (format.is_identity()) {
    if (static_cast<const void*>(out) != in) std::memcpy(out, in, tensor.bytes());
    return;
  }
  const MemoryOrder at(tensor, format.channels_last);
  switch (format.dtype) {
    case DType::float32:
      for_each_element(tensor.size, threads,
                       [&](int64_t i) { out[i] = static_cast<const float*>(in)[at(i)]; });
      return;
    case DType::bfloat16:
      for_each_element(tensor.size, threads, [&](int64_t i) {
        out[i] = bfloat16_value(static_cast<const uint16_t*>(in)[at(i)]);
      });
      return;
    case DType::float16:
      for_each_element(tensor.size, threads, [&](int64_t i) {
        out[i] = float16_value(static_cast<const uint16_t*>(in)[at(i)]);
      });
      return;
  }
}

}  // namespace normbench
