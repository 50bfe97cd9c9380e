#include <algorithm>

#include "app/device/cuda_check.hpp"
#include "app/device/guarded_buffer.hpp"

namespace normbench {

namespace {
constexpr int kThreads = 256;

// The pattern word at `word` of a guard; `side` keeps the two guards different.
__device__ __forceinline__ uint32_t pattern_word(uint64_t word, uint32_t side) {
  uint64_t z = word * 0x9e3779b97f4a7c15ull + side;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  return static_cast<uint32_t>(z ^ (z >> 31)) | 0x01010101u;  // no zero byte, no NaN-fill byte
}

__global__ void fill_guard_kernel(uint32_t* guard, uint64_t words, uint32_t side) {
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < words;
       i += uint64_t{gridDim.x} * blockDim.x)
    guard[i] = pattern_word(i, side);
}

// tally[0 or 1]: damaged bytes of the front or back guard; tally[2 or 3]: the reach.
// `back_base`: how far past the end of the buffer the back guard starts (its slack).
__global__ void check_guard_kernel(const uint32_t* guard, uint64_t words, uint32_t side, bool front,
                                   uint64_t back_base, unsigned long long* tally) {
  unsigned long long bad = 0, reach = 0;
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < words;
       i += uint64_t{gridDim.x} * blockDim.x) {
    const uint32_t diff = guard[i] ^ pattern_word(i, side);
    if (diff == 0) continue;
    for (int b = 0; b < 4; ++b) {
      if (((diff >> (8 * b)) & 0xffu) == 0) continue;
      ++bad;
      const uint64_t byte = 4 * i + b;
      reach = max(reach,
                  static_cast<unsigned long long>(front ? 4 * words - byte : back_base + byte + 1));
    }
  }
  if (bad == 0) return;
  atomicAdd(tally + (front ? 0 : 1), bad);
  atomicMax(tally + (front ? 2 : 3), reach);
}

int blocks_for(uint64_t words) {
  return static_cast<int>(std::min<uint64_t>(512, (words + kThreads - 1) / kThreads));
}
}  // namespace

GuardedBuffer::GuardedBuffer(size_t bytes)
    : raw_(2 * kGuardBytes + (bytes + 255) / 256 * 256), tally_(4 * sizeof(unsigned long long)) {
  bytes_ = bytes;
  usable_ = static_cast<char*>(raw_.get()) + kGuardBytes;
  back_offset_ = kGuardBytes + (bytes + 255) / 256 * 256;
}

cudaError_t GuardedBuffer::arm(cudaStream_t stream) const {
  if (!raw_.get()) return cudaSuccess;
  const uint64_t words = kGuardBytes / 4;
  auto* front = static_cast<uint32_t*>(raw_.get());
  auto* back = reinterpret_cast<uint32_t*>(static_cast<char*>(raw_.get()) + back_offset_);
  fill_guard_kernel<<<blocks_for(words), kThreads, 0, stream>>>(front, words, 1u);
  fill_guard_kernel<<<blocks_for(words), kThreads, 0, stream>>>(back, words, 2u);
  // The bytes between the end of the buffer and the 256-byte boundary belong to the back
  // guard too: a write there is outside the buffer.
  const size_t slack = back_offset_ - kGuardBytes - bytes_;
  if (slack > 0) {
    const cudaError_t e = cudaMemsetAsync(usable_ + bytes_, 0x5b, slack, stream);
    if (e != cudaSuccess) return e;
  }
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return cudaMemsetAsync(tally_.get(), 0, tally_.bytes(), stream);
}

namespace {
__global__ void check_slack_kernel(const unsigned char* slack, uint64_t bytes,
                                   unsigned long long* tally) {
  unsigned long long bad = 0, reach = 0;
  for (uint64_t i = threadIdx.x; i < bytes; i += blockDim.x)
    if (slack[i] != 0x5b) {
      ++bad;
      reach = max(reach, static_cast<unsigned long long>(i + 1));
    }
  if (bad == 0) return;
  atomicAdd(tally + 1, bad);
  atomicMax(tally + 3, reach);
}
}  // namespace

cudaError_t GuardedBuffer::check(cudaStream_t stream) const {
  if (!raw_.get()) return cudaSuccess;
  const uint64_t words = kGuardBytes / 4;
  auto* tally = tally_.as<unsigned long long>();
  const auto* front = static_cast<const uint32_t*>(raw_.get());
  const auto* back =
      reinterpret_cast<const uint32_t*>(static_cast<const char*>(raw_.get()) + back_offset_);
  const size_t slack = back_offset_ - kGuardBytes - bytes_;
  check_guard_kernel<<<blocks_for(words), kThreads, 0, stream>>>(front, words, 1u, true, 0, tally);
  // Reach past the end counts from the end of the buffer: the slack comes first.
  check_guard_kernel<<<blocks_for(words), kThreads, 0, stream>>>(back, words, 2u, false, slack,
                                                                 tally);
  if (slack > 0)
    check_slack_kernel<<<1, kThreads, 0, stream>>>(
        reinterpret_cast<const unsigned char*>(usable_ + bytes_), slack, tally);
  return cudaGetLastError();
}

GuardDamage GuardedBuffer::damage(cudaStream_t stream) const {
  GuardDamage d;
  if (!raw_.get()) return d;
  unsigned long long host[4] = {0, 0, 0, 0};
  NORMBENCH_CUDA_CHECK(
      cudaMemcpyAsync(host, tally_.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  d.before_bytes = host[0];
  d.after_bytes = host[1];
  d.before_reach = host[2];
  d.after_reach = host[3];
  return d;
}

}  // namespace normbench
