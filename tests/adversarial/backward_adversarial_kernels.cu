// Deliberately wrong kernels of the backward ops, beside adversarial_kernels.cu's (same test-only
// binary, same GPU test): each runs the shipped baseline and then does one wrong thing to an
// output or input that only the backward ops have, or sums dweight in bfloat16.
//
// bf16_dweight_sum: dx and dbias right; dweight[j] summed over the rows by one thread, the
// running sum rounded to bfloat16 after every addition. On 4096 rows of N(0,1) data
// (adversarial.json) the partial sums reach |s| of about 64, where bfloat16's spacing is 0.5:
// its error grows like 2^-8 rms(t) M / sqrt(2), about 11, against dweight's tolerance of
// 2^-7 |ref| + 2^-6 plus an allowance 8 sqrt(M) 2^-24 S of about 0.1 (docs/backward.md): it
// must fail on most columns. The same sum kept in float32 (the baseline) passes.
//
// without_ds_out: add_rms_norm_backward's dx as rms_norm_backward's, the gradient that reached s
// (ds_out) not added: the mistake of differentiating y alone. changes_ds_out: right, then
// ds_out changed.
#include <cuda_bf16.h>

#include "kernels/registry.hpp"

namespace normbench::adversarial {
namespace {

constexpr int kThreads = 256;

cudaError_t correct_backward(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return plan_kernel(*find_kernel(std::string(op_name(p.op)) + ".naive"), p, d).launch(a);
}

__global__ void bf16_column_sums(const __nv_bfloat16* x, const __nv_bfloat16* dy, const float* mean,
                                 const float* rstd, __nv_bfloat16* grad_weight, int64_t rows,
                                 int64_t columns) {
  const int64_t j = int64_t{blockIdx.x} * kThreads + threadIdx.x;
  if (j >= columns) return;
  __nv_bfloat16 sum = __float2bfloat16_rn(0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r * columns + j;
    const float xhat = (__bfloat162float(x[i]) - mean[r]) * rstd[r];
    sum = __float2bfloat16_rn(__bfloat162float(sum) + __bfloat162float(dy[i]) * xhat);
  }
  grad_weight[j] = sum;
}

std::optional<std::string> bf16_rows_only(const ProblemShape& p, const DeviceCaps&) {
  if (p.dtype != DType::bfloat16 || p.param_dtype != DType::bfloat16 || !p.affine)
    return "written for bfloat16 data and weights only";
  return std::nullopt;
}

cudaError_t bf16_dweight_sum(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct_backward(p, d, a); e != cudaSuccess) return e;
  const auto blocks = static_cast<unsigned>(ceil_div(p.param_size, kThreads));
  bf16_column_sums<<<blocks, kThreads, 0, a.stream>>>(
      static_cast<const __nv_bfloat16*>(a.x), static_cast<const __nv_bfloat16*>(a.dy),
      static_cast<const float*>(a.mean), static_cast<const float*>(a.rstd),
      static_cast<__nv_bfloat16*>(a.grad_weight), p.num_segments, p.param_size);
  return cudaGetLastError();
}

// One float32 element written at `index` of `data` (past the end, or over an input).
__global__ void write_float_at(void* data, int64_t index, float value) {
  static_cast<float*>(data)[index] = value;
}

// Right, then one float past the end of dweight.
cudaError_t writes_after_dweight(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct_backward(p, d, a); e != cudaSuccess) return e;
  write_float_at<<<1, 1, 0, a.stream>>>(a.grad_weight, p.param_size, 1.0f);
  return cudaGetLastError();
}

// Right, then dy or the saved rstd changed where the outputs were computed from them.
cudaError_t changes_dy(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct_backward(p, d, a); e != cudaSuccess) return e;
  write_float_at<<<1, 1, 0, a.stream>>>(const_cast<void*>(a.dy), 0, 0.25f);
  return cudaGetLastError();
}
cudaError_t changes_rstd(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct_backward(p, d, a); e != cudaSuccess) return e;
  write_float_at<<<1, 1, 0, a.stream>>>(const_cast<void*>(a.rstd), 0, 0.25f);
  return cudaGetLastError();
}

// add_rms_norm_backward's baseline with ds_out null: rms_norm_backward's dx of s, dweight right.
cudaError_t without_ds_out(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  KernelArgs no_sum_gradient = a;
  no_sum_gradient.ds_out = nullptr;
  return correct_backward(p, d, no_sum_gradient);
}
cudaError_t changes_ds_out(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct_backward(p, d, a); e != cudaSuccess) return e;
  write_float_at<<<1, 1, 0, a.stream>>>(const_cast<void*>(a.ds_out), 0, 0.25f);
  return cudaGetLastError();
}

// dx right; dweight and dbias go to the workspace, and the outputs keep the harness's NaN.
cudaError_t dx_only(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  KernelArgs no_parameters = a;
  no_parameters.grad_weight = a.workspace;
  no_parameters.grad_bias =
      p.has_bias ? static_cast<char*>(a.workspace) + 4 * p.param_size : nullptr;
  return correct_backward(p, d, no_parameters);
}
size_t dx_only_workspace(const ProblemShape& p, const DeviceCaps&) {
  return static_cast<size_t>(8 * p.param_size);
}

void register_backward(const std::string& name, const std::string& what, LaunchFunction f,
                       UnsupportedFunction unsupported = nullptr,
                       WorkspaceFunction workspace = nullptr, Op op = Op::layer_norm_backward) {
  register_kernel(make_variant(op, std::string(op_name(op)) + ".adversarial_" + name, what, f,
                               unsupported, workspace, false, Accepts::everything()));
}

const bool registered = [] {
  register_backward("bf16_dweight_sum",
                    "dx and dbias right; dweight summed over the rows in bfloat16",
                    bf16_dweight_sum, bf16_rows_only);
  register_backward("writes_after_dweight", "right, then writes one float past dweight",
                    writes_after_dweight);
  register_backward("changes_dy", "right, then changes dy", changes_dy);
  register_backward("changes_rstd", "right, then changes the saved rstd", changes_rstd);
  register_backward("dx_only", "the right dx; dweight and dbias written to its workspace", dx_only,
                    nullptr, dx_only_workspace);
  register_backward("without_ds_out", "rms_norm_backward's dx of s: ds_out not added",
                    without_ds_out, nullptr, nullptr, Op::add_rms_norm_backward);
  register_backward("changes_ds_out", "right, then changes ds_out", changes_ds_out, nullptr,
                    nullptr, Op::add_rms_norm_backward);
  return true;
}();

}  // namespace
}  // namespace normbench::adversarial
