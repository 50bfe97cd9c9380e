// SiLU's epilogues for 16-bit outputs against float64 over the range of their output type, on the
// GPU (their MUFU operations exist only there, and their actual errors are the device's). Each
// output is rounded to its type as the kernels store it and measured in units of that type's
// default tolerance, |y - ref| / (atol + rtol |ref|). The epilogue's own error must leave room
// for the GroupNorm value's error before it, so a form passes at no more than 3/4 of the
// tolerance; a control off by three unit roundoffs shows that the measurement can fail.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "app/config/config.hpp"
#include "kernels/device/device_math.cuh"
#include "tests/gpu/gpu_test_support.hpp"

namespace normbench {
namespace {

// The values SiLU is applied to: every finite float16 value, then a dense sweep of [-24, 24]
// (floats between float16's), then values near and beyond float16's largest and float32's.
std::vector<float> silu_arguments() {
  std::vector<float> v;
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    const __half_raw raw{static_cast<unsigned short>(bits)};
    const float f = __half2float(__half(raw));
    if (std::isfinite(f)) v.push_back(f);
  }
  constexpr int kSweep = 1 << 22;
  for (int k = 0; k < kSweep; ++k) v.push_back(-24.0f + 48.0f * static_cast<float>(k) / kSweep);
  for (float f : {1e5f, -1e5f, 3e38f, -3e38f, 65504.0f, -65504.0f, 70000.0f, -70000.0f})
    v.push_back(f);
  return v;
}

template <class T, class Epilogue>
__global__ void apply_each(const float* v, T* y, int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i < n) y[i] = static_cast<T>(Epilogue{}(v[i]));
}

// SiLU off by three float16 unit roundoffs, relative, where |y| < 1024: over rtol (two), so the
// measurement must find it out of tolerance wherever |y| is large enough for rtol to dominate
// atol (and not only where the product overflows float16).
struct SiluOffByThreeUnits {
  __device__ float operator()(float v) const {
    const float y = kernels::SiluEpilogue{}(v);
    return fabsf(y) < 1024.0f ? y * (1.0f + 3.0f / 2048.0f) : y;
  }
};

constexpr double kFloat16Largest = 65504.0;
constexpr double kBfloat16Largest = 3.3895313892515355e38;

struct Worst {
  double tolerance_use = 0;  // |y - ref| / (atol + rtol |ref|)
  float argument = 0;
  double got = 0, want = 0;
};

// `largest`: T's largest finite value.
template <class T, class Epilogue>
Worst worst_error(DType dtype, double largest) {
  const std::vector<float> v = silu_arguments();
  const auto n = static_cast<int64_t>(v.size());
  float* device_v = nullptr;
  T* device_y = nullptr;
  EXPECT_EQ(cudaMalloc(&device_v, n * sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&device_y, n * sizeof(T)), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(device_v, v.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  const auto blocks = static_cast<unsigned>((n + 255) / 256);
  apply_each<T, Epilogue><<<blocks, 256>>>(device_v, device_y, n);
  std::vector<T> y(static_cast<size_t>(n));
  EXPECT_EQ(cudaMemcpy(y.data(), device_y, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(device_v);
  cudaFree(device_y);

  const Tolerance tolerance = default_tolerance(dtype);
  Worst worst;
  for (int64_t i = 0; i < n; ++i) {
    const double x = v[static_cast<size_t>(i)];
    // silu(x) = x / (1 + e^-x); for x below -700, e^-x overflows and the quotient is -0.
    const double want = x < -700.0 ? 0.0 : x / (1.0 + std::exp(-x));
    // Beyond the type's range the output overflows whatever the epilogue does.
    if (std::fabs(want) > largest) continue;
    const double got = static_cast<float>(y[static_cast<size_t>(i)]);
    double use = std::fabs(got - want) / (tolerance.atol + tolerance.rtol * std::fabs(want));
    if (std::isnan(use)) use = INFINITY;  // a NaN output is the worst there is
    if (use > worst.tolerance_use) worst = {use, v[static_cast<size_t>(i)], got, want};
  }
  return worst;
}

void print(const char* form, const Worst& w) {
  std::printf("%s: worst at v = %.9g: %.9g, float64 %.9g, %.3f of the tolerance\n", form,
              static_cast<double>(w.argument), w.got, w.want, w.tolerance_use);
}

TEST(SiluEpilogueOnGpu, Float16ExactFormStaysWithinThreeQuartersOfTheTolerance) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w = worst_error<__half, kernels::SiluEpilogue>(DType::float16, kFloat16Largest);
  print("float16, exact form", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, Bfloat16TanhFormStaysWithinThreeQuartersOfTheTolerance) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w =
      worst_error<__nv_bfloat16, kernels::SiluTanhEpilogue>(DType::bfloat16, kBfloat16Largest);
  print("bfloat16, tanh form", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, AFormOffByThreeUnitsFailsFloat16) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w = worst_error<__half, SiluOffByThreeUnits>(DType::float16, kFloat16Largest);
  print("float16, off by three units (control)", w);
  EXPECT_GT(w.tolerance_use, 1.0);
}

}  // namespace
}  // namespace normbench
