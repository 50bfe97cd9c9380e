// The harness on a real GPU: it must catch kernels that are wrong in each way a kernel can be
// wrong (unwritten output, off by more than the tolerance, mutated inputs, refused launch),
// and time the ones that pass.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "app/config/config.hpp"
#include "app/device/device_buffer.hpp"
#include "app/device/device_checks.hpp"
#include "app/run/run_pipeline.hpp"
#include "app/worker/worker_process.hpp"
#include "kernels/registry.hpp"
#include "reference/low_precision.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace normbench {
namespace {

const char* kConfig = R"({
  "name": "harness_test",
  "defaults": {"trials": 2, "timing": {"warmup": 1, "min_samples": 5, "max_time_s": 0.5}},
  "problems": [{"id": "rows", "op": "layer_norm", "shape": [64, 1024], "normalized_shape": [1024]}]
})";

__global__ void add_to_output(float* y, int64_t n, float offset, int64_t limit) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n && i < limit;
       i += int64_t{gridDim.x} * blockDim.x)
    y[i] += offset;
}

__global__ void flip_first_input(float* x) {
  x[0] = -x[0] + 1.0f;
}

cudaError_t correct(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return plan_kernel(*find_kernel("layer_norm.block_per_row"), p, d).launch(a);
}

// Correct everywhere but the second half, which is never written (stays NaN).
cudaError_t half_written(const ProblemShape& p, const DeviceCaps&, const KernelArgs& a) {
  ProblemShape half = p;
  half.num_segments = p.num_segments / 2;
  half.num_elements = half.num_segments * p.segment_size;
  return plan_kernel(*find_kernel("layer_norm.block_per_row"), half, DeviceCaps{}).launch(a);
}

cudaError_t off_by_3e5(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct(p, d, a); e != cudaSuccess) return e;
  add_to_output<<<64, 256, 0, a.stream>>>(static_cast<float*>(a.y), p.num_elements, 3e-5f,
                                          p.num_elements);
  return cudaGetLastError();
}

cudaError_t mutates_input(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (cudaError_t e = correct(p, d, a); e != cudaSuccess) return e;
  flip_first_input<<<1, 1, 0, a.stream>>>(static_cast<float*>(const_cast<void*>(a.x)));
  return cudaGetLastError();
}

__global__ void flip_lowest_bit(float* y) {
  y[0] = __uint_as_float(__float_as_uint(y[0]) ^ 1u);
}

// Correct, with the lowest bit of y[0] flipped on every other launch: not bitwise
// deterministic, and well within the tolerance.
cudaError_t honest_noise(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  static int launches = 0;
  if (cudaError_t e = correct(p, d, a); e != cudaSuccess) return e;
  if (++launches % 2 == 1) flip_lowest_bit<<<1, 1, 0, a.stream>>>(static_cast<float*>(a.y));
  return cudaGetLastError();
}

cudaError_t refused(const ProblemShape&, const DeviceCaps&, const KernelArgs& a) {
  add_to_output<<<1, 4096, 0, a.stream>>>(static_cast<float*>(a.y), 0, 0.0f,
                                          0);  // 4096 threads: invalid
  return cudaGetLastError();
}

KernelResult run_one(const KernelVariant& variant, bool timing = false) {
  static const RunConfig config = parse_config(kConfig, "harness_test");
  RunSettings settings;
  settings.timing = timing;
  const RunReport report =
      run_benchmarks(config, {{&config.problems[0], {&variant}}}, settings, {});
  EXPECT_TRUE(report.aborted.empty()) << report.aborted;
  return report.problems.at(0).kernels.at(0);
}

TEST(HarnessOnGpu, CorrectKernelPassesAndIsTimed) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k =
      run_one(make_variant(Op::layer_norm, "layer_norm.t_correct", "", correct), true);
  EXPECT_EQ(k.status, KernelStatus::passed) << k.reason;
  ASSERT_TRUE(k.timing.has_value());
  EXPECT_GE(k.timing->summary.count, 5u);
  EXPECT_GT(k.timing->summary.median, 0.0);
  EXPECT_TRUE(k.bandwidth_gb_per_s.has_value());
  EXPECT_TRUE(k.percent_of_copy.has_value());
}

// Once per run, under the kernels' own timing: an empty launch and a launch that copies four
// cache lines, each a few microseconds and the empty one no slower; the 64x1024 problem (532 kB,
// a fraction of a microsecond at the copy bandwidth) is bound by the latency floor.
TEST(HarnessOnGpu, LatencyFloorIsMeasuredOncePerRun) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  static const RunConfig config = parse_config(kConfig, "harness_test");
  const KernelVariant variant = make_variant(Op::layer_norm, "layer_norm.t_floor", "", correct);
  RunSettings settings;
  const RunReport report =
      run_benchmarks(config, {{&config.problems[0], {&variant}}}, settings, {});
  ASSERT_TRUE(report.latency_floor);
  const LatencyFloor& floor = *report.latency_floor;
  EXPECT_EQ(floor.bytes_moved, 1024u);
  for (const TimingResult* t : {&floor.empty_launch, &floor.cold, &floor.warm}) {
    EXPECT_GE(t->summary.count, 100u);
    EXPECT_GT(t->summary.median, 0.0);
    EXPECT_LT(t->summary.median, 0.050);  // 50 us
  }
  EXPECT_LE(floor.empty_launch.summary.median, floor.cold.summary.median);
  ASSERT_EQ(report.devices.size(), 1u);
  EXPECT_TRUE(report.devices[0].latency_floor);

  const KernelResult& k = report.problems.at(0).kernels.at(0);
  ASSERT_EQ(k.status, KernelStatus::passed) << k.reason;
  ASSERT_TRUE(k.floor && k.percent_of_floor);
  EXPECT_EQ(k.floor->bound, FloorBound::latency);
  EXPECT_EQ(k.floor->ms, floor.cold.summary.median);  // flush_l2 is on
  EXPECT_GT(*k.percent_of_floor, 0.0);
}

// A kernel that is not bitwise deterministic passes, with every timed sample checked: those
// on the last trial's inputs against the tolerance bounds on the device, the one on fresh inputs
// against their reference on the host.
TEST(HarnessOnGpu, ANondeterministicKernelHasEveryTimedSampleChecked) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k =
      run_one(make_variant(Op::layer_norm, "layer_norm.t_noise", "", honest_noise), true);
  ASSERT_EQ(k.status, KernelStatus::passed) << k.reason;
  EXPECT_EQ(k.deterministic, false);
  ASSERT_TRUE(k.timing && k.timing_checks);
  EXPECT_EQ(k.timing_checks->method, "bounds");
  EXPECT_EQ(k.timing_checks->fresh_inputs, 1);
  EXPECT_EQ(static_cast<size_t>(k.timing_checks->outputs_checked), k.timing->summary.count);
}

// The device's test of each element against its bounds, in each output type: outside where the
// value is past a bound, or not NaN where the bounds are (a NaN reference), or NaN where they
// are not. In a child process: this one forks the harness's workers, so it must not touch CUDA.
TEST(HarnessOnGpu, BoundsCheckCountsTheElementsOutside) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  WorkerProcess child([](WorkerChannel& channel) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> lower = {0.5f, nan, 2.5f, 2.0f, nan, 0.0f};
    const std::vector<float> upper = {1.5f, nan, 3.0f, 4.0f, nan, 1.0f};
    const std::vector<float> values = {1.0f, nan, 2.0f, 3.0f, 1.0f, nan};  // 2, 4, 5 outside
    const size_t n = values.size();
    DeviceBuffer bounds(2 * n * sizeof(float)), scratch(2 * sizeof(unsigned long long));
    cudaMemcpy(bounds.get(), lower.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(bounds.as<float>() + n, upper.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    nlohmann::json found;
    for (DType dtype : kAllDTypes) {
      std::vector<uint16_t> bits;
      for (float v : values)
        bits.push_back(dtype == DType::bfloat16 ? bfloat16_bits(v) : float16_bits(v));
      DeviceBuffer data(n * sizeof(float));
      cudaMemcpy(data.get(),
                 dtype == DType::float32 ? static_cast<const void*>(values.data()) : bits.data(),
                 n * dtype_bytes(dtype), cudaMemcpyHostToDevice);
      const BoundsCheck c =
          device_bounds_check(data.get(), dtype, bounds.as<float>(), bounds.as<float>() + n, n,
                              scratch.as<unsigned long long>(), nullptr);
      found[std::string(dtype_name(dtype))] = {c.outside, c.first};
    }
    channel.send(found);
    return 0;
  });
  const nlohmann::json found = child.receive(60.0);
  child.stop();
  for (DType dtype : kAllDTypes) {
    const std::string name(dtype_name(dtype));
    ASSERT_TRUE(found.contains(name)) << found.dump();
    EXPECT_EQ(found[name][0], 3u) << name;
    EXPECT_EQ(found[name][1], 2u) << name;
  }
}

TEST(HarnessOnGpu, UnwrittenOutputFails) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k =
      run_one(make_variant(Op::layer_norm, "layer_norm.t_half", "", half_written), true);
  EXPECT_EQ(k.status, KernelStatus::failed);
  ASSERT_EQ(k.trials.size(), 1u);  // not run again after failing
  EXPECT_EQ(k.trials[0].result.violations, 32 * 1024);
  EXPECT_EQ(k.trials[0].result.nonfinite, 32 * 1024);
  EXPECT_EQ(k.trials[0].result.first_mismatches.at(0).index, 32 * 1024);
  EXPECT_FALSE(k.timing.has_value()) << "a failed kernel must not be timed";
}

TEST(HarnessOnGpu, ErrorAboveToleranceFails) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k = run_one(make_variant(Op::layer_norm, "layer_norm.t_off", "", off_by_3e5));
  EXPECT_EQ(k.status, KernelStatus::failed);
  EXPECT_GT(k.trials.at(0).result.violations, 0);
  EXPECT_NEAR(k.trials.at(0).result.max_abs_error, 3e-5, 1e-5);
}

TEST(HarnessOnGpu, MutatedInputFails) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k =
      run_one(make_variant(Op::layer_norm, "layer_norm.t_mutates", "", mutates_input));
  EXPECT_EQ(k.status, KernelStatus::failed);
  EXPECT_FALSE(k.trials.at(0).result.inputs_unchanged);
}

TEST(HarnessOnGpu, RefusedLaunchIsAnErrorAndTheRunGoesOn) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelResult k = run_one(make_variant(Op::layer_norm, "layer_norm.t_refused", "", refused));
  EXPECT_EQ(k.status, KernelStatus::error);
  EXPECT_NE(k.reason.find("launch failed"), std::string::npos) << k.reason;
  // The device is still usable afterwards.
  EXPECT_EQ(run_one(make_variant(Op::layer_norm, "layer_norm.t_after", "", correct)).status,
            KernelStatus::passed);
}

}  // namespace
}  // namespace normbench
