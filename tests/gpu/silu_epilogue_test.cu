// SiLU's epilogues for 16-bit outputs (and float32's, over every argument) against float64 over the
// range of their output type, on the GPU (their MUFU operations exist only there, and their actual
// errors are the device's). Each output is rounded to its type as the kernels store it and
// measured in units of that type's default tolerance, |y - ref| / (atol + rtol |ref|). The
// epilogue's own error must leave room for the GroupNorm value's error before it, so a form passes
// at no more than 3/4 of the tolerance; a control off by three unit roundoffs shows that the
// measurement can fail. Each form is measured over a sweep and over every float32 argument.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "kernels/device/device_math.cuh"
#include "tests/gpu/gpu_test_support.hpp"
#include "tests/gpu/silu_every_float.cuh"

namespace normbench {
namespace {

// The values SiLU is applied to: every finite float16 value, then a dense sweep of [-24, 24]
// (floats between float16's), then values near and beyond float16's largest and float32's (their
// outputs must overflow to the infinity of their sign, or round to the largest value), and NaNs.
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
  // NaNs, whose outputs must be NaN.
  for (int k = 0; k < 64; ++k) v.push_back(std::nanf(""));
  return v;
}

// Each argument through the epilogue, scaled as a kernel passes it (its input scale: exact).
template <class T, class Epilogue>
__global__ void apply_each(const float* v, T* y, int64_t n) {
  const int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  y[i] = static_cast<T>(Epilogue{}(v[i] * kernels::epilogue_input_scale<Epilogue>()));
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

using testing::kBfloat16Overflow;
using testing::kFloat16Overflow;
using testing::kFloat32Overflow;

struct Worst {
  std::string error;         // a CUDA call that failed, else empty
  double tolerance_use = 0;  // |y - ref| / (atol + rtol |ref|)
  float argument = 0;
  double got = 0, want = 0;
};

// The epilogue over silu_arguments() on the GPU, each output rounded to T, against float64;
// where the exact value overflows T (`overflow`), the output must be the infinity of its sign.
template <class T, class Epilogue>
Worst worst_error(DType dtype, double overflow) {
  const std::vector<float> v = silu_arguments();
  const auto n = static_cast<int64_t>(v.size());
  std::vector<T> y(v.size());
  float* device_v = nullptr;
  T* device_y = nullptr;
  cudaError_t status = cudaMalloc(&device_v, n * sizeof(float));
  if (status == cudaSuccess) status = cudaMalloc(&device_y, n * sizeof(T));
  if (status == cudaSuccess)
    status = cudaMemcpy(device_v, v.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  if (status == cudaSuccess) {
    const auto blocks = static_cast<unsigned>((n + 255) / 256);
    apply_each<T, Epilogue><<<blocks, 256>>>(device_v, device_y, n);
    status = cudaGetLastError();
  }
  if (status == cudaSuccess)
    status = cudaMemcpy(y.data(), device_y, n * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(device_v);
  cudaFree(device_y);
  Worst worst;
  if (status != cudaSuccess) {
    worst.error = cudaGetErrorString(status);
    return worst;
  }

  const Tolerance tolerance = default_tolerance(dtype);
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    const double want = x / (1.0 + std::exp(-x));  // -0 where e^-x overflows
    const double got = static_cast<float>(y[i]);
    const double use =
        testing::silu_tolerance_use(got, want, tolerance.atol, tolerance.rtol, overflow);
    if (use > worst.tolerance_use) worst = {"", use, v[i], got, want};
  }
  return worst;
}

// The same over every finite float32 argument and every NaN (silu_every_float.cuh): no sweep
// can show that a MUFU result or a cancellation is within bounds between its points.
template <class T, class Epilogue>
Worst worst_over_every_float(DType dtype, double overflow) {
  const Tolerance tolerance = default_tolerance(dtype);
  const testing::EveryFloatWorst w =
      testing::silu_worst_over_every_float<T, Epilogue>(tolerance.atol, tolerance.rtol, overflow);
  return {w.error, w.tolerance_use, w.argument, w.got, w.want};
}

void print(const char* form, const Worst& w) {
  std::printf("%s: worst at v = %.9g: %.9g, float64 %.9g, %.3f of the tolerance\n", form,
              static_cast<double>(w.argument), w.got, w.want, w.tolerance_use);
}

// The forms the kernels apply to each type's outputs (EpilogueFor).
TEST(SiluEpilogueOnGpu, Float16FormStaysWithinThreeQuartersOfTheTolerance) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w = worst_error<__half, kernels::EpilogueFor<__half, kernels::SiluEpilogue>>(
      DType::float16, kFloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("float16", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, Bfloat16FormStaysWithinThreeQuartersOfTheTolerance) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w =
      worst_error<__nv_bfloat16, kernels::EpilogueFor<__nv_bfloat16, kernels::SiluEpilogue>>(
          DType::bfloat16, kBfloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("bfloat16", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, Float16FormStaysWithinThreeQuartersOfTheToleranceForEveryFloat) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w =
      worst_over_every_float<__half, kernels::EpilogueFor<__half, kernels::SiluEpilogue>>(
          DType::float16, kFloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("float16, every float", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, Bfloat16FormStaysWithinThreeQuartersOfTheToleranceForEveryFloat) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w =
      worst_over_every_float<__nv_bfloat16,
                             kernels::EpilogueFor<__nv_bfloat16, kernels::SiluEpilogue>>(
          DType::bfloat16, kBfloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("bfloat16, every float", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

// float32 outputs take SiluEpilogue itself (__expf and __fdividef), against float32's 1e-5.
TEST(SiluEpilogueOnGpu, Float32FormStaysWithinThreeQuartersOfTheToleranceForEveryFloat) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w = worst_over_every_float<float, kernels::EpilogueFor<float, kernels::SiluEpilogue>>(
      DType::float32, kFloat32Overflow);
  ASSERT_EQ(w.error, "");
  print("float32, every float", w);
  EXPECT_LE(w.tolerance_use, 0.75);
}

TEST(SiluEpilogueOnGpu, AFormOffByThreeUnitsFailsFloat16OverEveryFloat) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w =
      worst_over_every_float<__half, SiluOffByThreeUnits>(DType::float16, kFloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("float16, off by three units, every float (control)", w);
  EXPECT_GT(w.tolerance_use, 1.0);
  EXPECT_LT(std::fabs(w.want), 1024.0);
}

TEST(SiluEpilogueOnGpu, AFormOffByThreeUnitsFailsFloat16) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const Worst w = worst_error<__half, SiluOffByThreeUnits>(DType::float16, kFloat16Overflow);
  ASSERT_EQ(w.error, "");
  print("float16, off by three units (control)", w);
  EXPECT_GT(w.tolerance_use, 1.0);
  EXPECT_LT(std::fabs(w.want), 1024.0);  // caught where it is off, not at an overflow
}

}  // namespace
}  // namespace normbench
