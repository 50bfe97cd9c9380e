// A SiLU epilogue over every float32 argument but the two infinities (which no normalization
// passes on: an infinite input makes its segment's value NaN), on the GPU: each output
// rounded to T as the kernels store it, against SiLU in float64 computed on the GPU as well, in
// units of T's tolerance (|y - ref| / (atol + rtol |ref|)). A sweep samples the range; this leaves
// no argument out, which matters where a form's MUFU results are not bounded well enough by
// NVIDIA's documentation (tanh) and where its cancellations depend on the argument's last bits.
// Used by tests/gpu/silu_epilogue_test.cu and by scripts/probes/silu_every_float.cu.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/device/device_math.cuh"

namespace normbench::testing {

struct EveryFloatWorst {
  std::string error;         // a CUDA call that failed, else empty
  double tolerance_use = 0;  // the largest |y - ref| / (atol + rtol |ref|); infinite: a wrong
                             // NaN, infinity or overflow
  float argument = 0;        // v, the SiLU argument (the epilogue gets v times its input scale)
  double got = 0, want = 0;
};

struct EveryFloatBlockWorst {
  double use;
  uint32_t bits;
  double got, want;
};

// The smallest magnitude that rounds to each output type's infinity: its largest finite value
// plus half its ulp there.
constexpr double kFloat16Overflow = 65504.0 + 16.0;
constexpr double kBfloat16Overflow = 3.3895313892515355e38 + 0x1p119;
constexpr double kFloat32Overflow = 3.4028234663852886e38 + 0x1p103;

constexpr int kEveryFloatThreads = 256;
constexpr int kEveryFloatBlocks = 4096;

// The tolerance use of one output; `overflow` is the smallest magnitude that rounds to T's
// infinity, beyond which the output must be the infinity of the exact value's sign.
__host__ __device__ inline double silu_tolerance_use(double got, double want, double atol,
                                                     double rtol, double overflow) {
  if (isnan(want)) return isnan(got) ? 0.0 : INFINITY;
  if (fabs(want) >= overflow) return isinf(got) && signbit(got) == signbit(want) ? 0.0 : INFINITY;
  const double use = fabs(got - want) / (atol + rtol * fabs(want));
  return isnan(use) ? INFINITY : use;  // a NaN output is the worst there is
}

template <class T, class Epilogue>
__global__ void __launch_bounds__(kEveryFloatThreads)
    silu_every_float(double atol, double rtol, double overflow, EveryFloatBlockWorst* worst) {
  const Epilogue epilogue{};
  constexpr float kScale = kernels::epilogue_input_scale<Epilogue>();
  const uint64_t threads = uint64_t{gridDim.x} * blockDim.x;
  EveryFloatBlockWorst mine{-1.0, 0, 0.0, 0.0};
  for (uint64_t i = blockIdx.x * uint64_t{blockDim.x} + threadIdx.x; i < (uint64_t{1} << 32);
       i += threads) {
    const auto bits = static_cast<uint32_t>(i);
    const float v = __uint_as_float(bits);
    if (isinf(v)) continue;
    const double got = static_cast<float>(static_cast<T>(epilogue(v * kScale)));
    const double x = v;
    const double want = x / (1.0 + exp(-x));  // -0 where e^-x overflows
    const double use = silu_tolerance_use(got, want, atol, rtol, overflow);
    if (use > mine.use) mine = {use, bits, got, want};
  }
  __shared__ EveryFloatBlockWorst block[kEveryFloatThreads];
  block[threadIdx.x] = mine;
  __syncthreads();
  for (int half = kEveryFloatThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half &&
        block[threadIdx.x + half].use > block[threadIdx.x].use)
      block[threadIdx.x] = block[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) worst[blockIdx.x] = block[0];
}

template <class T, class Epilogue>
EveryFloatWorst silu_worst_over_every_float(double atol, double rtol, double overflow) {
  EveryFloatWorst result;
  EveryFloatBlockWorst* device_worst = nullptr;
  std::vector<EveryFloatBlockWorst> worst(kEveryFloatBlocks);
  cudaError_t status = cudaMalloc(&device_worst, worst.size() * sizeof(EveryFloatBlockWorst));
  if (status == cudaSuccess) {
    silu_every_float<T, Epilogue>
        <<<kEveryFloatBlocks, kEveryFloatThreads>>>(atol, rtol, overflow, device_worst);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess)
    status = cudaMemcpy(worst.data(), device_worst, worst.size() * sizeof(EveryFloatBlockWorst),
                        cudaMemcpyDeviceToHost);
  cudaFree(device_worst);
  if (status != cudaSuccess) {
    result.error = cudaGetErrorString(status);
    return result;
  }
  for (const EveryFloatBlockWorst& w : worst) {
    if (w.use > result.tolerance_use) {
      float v = 0;
      static_assert(sizeof v == sizeof w.bits);
      std::memcpy(&v, &w.bits, sizeof v);
      result = {"", w.use, v, w.got, w.want};
    }
  }
  return result;
}

}  // namespace normbench::testing
