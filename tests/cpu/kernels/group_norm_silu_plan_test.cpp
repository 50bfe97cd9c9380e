// group_norm_silu's kernels on a described H100 (no GPU needed): each is a GroupNorm kernel of
// the same name with SiLU in its epilogue, so on every shape and format it must take, decline
// and size its workspace exactly as its group_norm twin, and group_norm_silu.default must pick
// the twin of group_norm.default's choice: the same kernel, the same bytes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

ProblemShape grouped(Op op, std::vector<int64_t> shape, int64_t groups, DType dtype, Layout layout,
                     bool affine, bool bias, DType param_dtype) {
  const ProblemFormat format{dtype, param_dtype, layout, bias};
  return make_problem_shape(op, std::move(shape), {}, groups, 1e-5, 1.0, affine, format);
}

// The variant names after "group_norm." of the built-in GroupNorm kernels.
std::vector<std::string> group_norm_variants() {
  std::vector<std::string> names;
  for (const KernelVariant& k : registered_kernels())
    if (k.op == Op::group_norm && k.origin.empty())
      names.push_back(k.id.substr(std::string("group_norm.").size()));
  return names;
}

TEST(GroupNormSiluKernels, EveryGroupNormKernelHasItsFusedTwin) {
  const std::vector<std::string> names = group_norm_variants();
  ASSERT_GE(names.size(),
            6u);  // naive, block_per_group, split_group, lookahead, grid_tiles, default
  for (const std::string& name : names) {
    const KernelVariant* twin = find_kernel("group_norm_silu." + name);
    ASSERT_NE(twin, nullptr) << "group_norm." << name << " has no group_norm_silu twin";
    EXPECT_EQ(twin->op, Op::group_norm_silu);
    EXPECT_EQ(twin->is_baseline, find_kernel("group_norm." + name)->is_baseline) << name;
  }
  int fused = 0;
  for (const KernelVariant& k : registered_kernels()) fused += k.op == Op::group_norm_silu;
  EXPECT_EQ(fused, static_cast<int>(names.size()));
}

TEST(GroupNormSiluKernels, PlanAsTheirGroupNormTwinsOnEveryShapeAndFormat) {
  const DeviceCaps h100 = testing::described_h100();
  struct Shape {
    std::vector<int64_t> dims;
    int64_t groups;
  };
  const std::vector<Shape> shapes = {{{8, 512, 64, 64}, 32},   {{2, 320, 64, 64}, 32},
                                     {{2, 1280, 16, 16}, 32},  {{2, 320, 128, 128}, 32},
                                     {{1, 128, 512, 512}, 32}, {{112, 64, 512, 512}, 8},
                                     {{1, 16, 128, 128}, 4},   {{2, 12, 5, 7}, 12},
                                     {{2, 6, 7, 9}, 3},        {{4, 8}, 2},
                                     {{1, 320, 7, 9}, 32}};
  const std::vector<std::string> names = group_norm_variants();
  int compared = 0, supported = 0;
  for (const Shape& s : shapes)
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
          for (int affine_form = 0; affine_form < 3; ++affine_form) {
            const bool affine = affine_form < 2, bias = affine_form == 0;
            const ProblemShape gn =
                grouped(Op::group_norm, s.dims, s.groups, dtype, layout, affine, bias, params);
            const ProblemShape gns =
                grouped(Op::group_norm_silu, s.dims, s.groups, dtype, layout, affine, bias, params);
            ASSERT_EQ(gns.min_bytes(), gn.min_bytes());
            for (const std::string& name : names) {
              const KernelPlan a = plan_kernel(*find_kernel("group_norm." + name), gn, h100);
              const KernelPlan b = plan_kernel(*find_kernel("group_norm_silu." + name), gns, h100);
              const std::string what =
                  name + " on " + std::to_string(gn.num_elements) + " " +
                  std::string(dtype_name(dtype)) + "/" + std::string(dtype_name(params)) + " " +
                  std::string(layout_name(layout)) + " affine form " + std::to_string(affine_form);
              EXPECT_EQ(a.unsupported, b.unsupported) << what;
              EXPECT_EQ(a.workspace_bytes, b.workspace_bytes) << what;
              EXPECT_EQ(bool(a.launch), bool(b.launch)) << what;
              const std::string twin =
                  a.dispatches_to.empty()
                      ? ""
                      : "group_norm_silu." + a.dispatches_to.substr(a.dispatches_to.find('.') + 1);
              EXPECT_EQ(twin, b.dispatches_to) << what;
              ++compared;
              supported += !b.unsupported;
            }
          }
  EXPECT_GT(supported, compared / 2);  // most pairs run, so launches were compared too
}

TEST(GroupNormSiluKernels, DefaultPicksTheFusedKernelsOfGroupNormsRules) {
  const DeviceCaps h100 = testing::described_h100();
  const auto chosen = [&](const ProblemShape& p) {
    return plan_kernel(*find_kernel("group_norm_silu.default"), p, h100).dispatches_to;
  };
  // The diffusion UNets' format: 16-bit channels-last, tiny (clusters), small and mid-sized
  // (held by the grid) and large (grid tiles).
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {2, 1280, 8, 8}, 32, DType::float16, Layout::nhwc,
                           true, true, DType::float16)),
            "group_norm_silu.cluster_tiles");
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {2, 320, 64, 64}, 32, DType::float16, Layout::nhwc,
                           true, true, DType::float16)),
            "group_norm_silu.grid_registers");
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {2, 640, 64, 64}, 32, DType::bfloat16, Layout::nhwc,
                           true, true, DType::bfloat16)),
            "group_norm_silu.grid_registers");
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {8, 512, 64, 64}, 32, DType::bfloat16, Layout::nhwc,
                           true, true, DType::bfloat16)),
            "group_norm_silu.grid_tiles");
  // KernelBench's B: float32 NCHW groups of 2M elements.
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {112, 64, 512, 512}, 8, DType::float32,
                           Layout::nchw, true, true, DType::float32)),
            "group_norm_silu.lookahead");
  // Small float32 NCHW groups.
  EXPECT_EQ(chosen(grouped(Op::group_norm_silu, {2, 12, 4, 4}, 12, DType::float32, Layout::nchw,
                           true, true, DType::float32)),
            "group_norm_silu.block_per_group");
}

}  // namespace
}  // namespace normbench
