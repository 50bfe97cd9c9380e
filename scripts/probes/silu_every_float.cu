// SiLU's 16-bit forms over every float32 argument (tests/gpu/silu_every_float.cuh): the kernels'
// tanh.approx.f32 form, whose documented error does not bound float16's tolerance below
// v = -7.9, on both 16-bit types, and the bounded cubic the kernels took before it
// (silu_forms.cuh). Prints each form's worst output in units of its type's tolerance. Not part of
// normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o silu_every_float scripts/probes/silu_every_float.cu
//   ./silu_every_float
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdio>

#include "silu_forms.cuh"
#include "tests/gpu/silu_every_float.cuh"

namespace {

using normbench::kernels::SiluTanhEpilogue;
using normbench::probes::SiluCubicEpilogue;
using normbench::testing::EveryFloatWorst;
using normbench::testing::kBfloat16Overflow;
using normbench::testing::kFloat16Overflow;
using normbench::testing::silu_worst_over_every_float;

constexpr double kFloat16Atol = 0x1p-9, kFloat16Rtol = 0x1p-10;
constexpr double kBfloat16Atol = 0x1p-6, kBfloat16Rtol = 0x1p-7;

void print(const char* form, const EveryFloatWorst& w) {
  if (!w.error.empty()) {
    std::printf("%s: CUDA error %s\n", form, w.error.c_str());
    return;
  }
  std::printf("%-52s worst %.4f of the tolerance at v = %.9g (got %.9g, float64 %.9g)\n", form,
              w.tolerance_use, static_cast<double>(w.argument), w.got, w.want);
}

}  // namespace

int main() {
  print("float16: the cubic (silu_forms.cuh)",
        silu_worst_over_every_float<__half, SiluCubicEpilogue>(kFloat16Atol, kFloat16Rtol,
                                                               kFloat16Overflow));
  print("float16: tanh.approx.f32 (SiluTanhEpilogue)",
        silu_worst_over_every_float<__half, SiluTanhEpilogue>(kFloat16Atol, kFloat16Rtol,
                                                              kFloat16Overflow));
  print("bfloat16: tanh.approx.f32 (SiluTanhEpilogue)",
        silu_worst_over_every_float<__nv_bfloat16, SiluTanhEpilogue>(kBfloat16Atol, kBfloat16Rtol,
                                                                     kBfloat16Overflow));
  return 0;
}
