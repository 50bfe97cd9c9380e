// The kernel registry and the host-side launch decisions, on a described H100 (no GPU needed):
// every op has exactly one baseline and a dispatching default, ids follow the rules, each
// variant's supports() says why it declines a shape, and the defaults pick the variant the
// kernel notes measured fastest for problems A, B and C.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "app/config/config.hpp"
#include "kernels/families/split_plan.hpp"
#include "kernels/group_norm/lookahead_plan.hpp"
#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

DeviceCaps h100() {
  return testing::described_h100();
}

const ProblemConfig& core_problem(const std::string& id) {
  static const RunConfig config = builtin_config();
  for (const auto& p : config.problems)
    if (p.id == id) return p;
  throw std::logic_error("no problem " + id);
}

ProblemShape layer_norm_rows(int64_t rows, int64_t row, bool affine = true) {
  return make_problem_shape(Op::layer_norm, {rows, row}, {row}, 0, 1e-5, 1.0, affine);
}

// The variant a registered `<op>.default` runs for the problem.
std::string chosen(const std::string& default_id, const ProblemShape& p) {
  const KernelVariant* dispatcher = find_kernel(default_id);
  if (!dispatcher) return "(no such kernel)";
  return plan_kernel(*dispatcher, p, h100()).dispatches_to;
}

// Why `id` declines `p` on an H100, or nullopt if it takes it.
std::optional<std::string> unsupported_reason(const std::string& id, const ProblemShape& p,
                                              const DeviceCaps& caps = h100()) {
  return plan_kernel(*find_kernel(id), p, caps).unsupported;
}

cudaError_t no_launch(const ProblemShape&, const DeviceCaps&, const KernelArgs&) {
  return cudaErrorNotSupported;
}

TEST(KernelRegistry, EveryOpHasOneBaselineAndADefault) {
  for (Op op : kAllOps) {
    int baselines = 0;
    for (const auto& k : registered_kernels())
      if (k.op == op) baselines += k.is_baseline;
    EXPECT_EQ(baselines, 1) << op_name(op);
    EXPECT_NE(find_kernel(std::string(op_name(op)) + ".default"), nullptr) << op_name(op);
    EXPECT_NE(find_kernel(std::string(op_name(op)) + ".naive"), nullptr) << op_name(op);
  }
}

TEST(KernelRegistry, IdsAreUniqueDottedAndDescribed) {
  std::set<std::string> ids;
  for (const auto& k : registered_kernels()) {
    EXPECT_TRUE(ids.insert(k.id).second) << k.id;
    EXPECT_EQ(k.id.rfind(std::string(op_name(k.op)) + ".", 0), 0u) << k.id;
    EXPECT_FALSE(k.description.empty()) << k.id;
    EXPECT_TRUE(k.plan) << k.id;
  }
}

TEST(KernelRegistry, RejectsDuplicateAndMisnamedIds) {
  const auto launch = no_launch;
  EXPECT_THROW(register_kernel(make_variant(Op::layer_norm, "layer_norm.naive", "dup", launch)),
               std::logic_error);
  EXPECT_THROW(register_kernel(make_variant(Op::layer_norm, "group_norm.x", "wrong op", launch)),
               std::logic_error);
  EXPECT_THROW(register_kernel(make_variant(Op::layer_norm, "layer_norm.", "empty", launch)),
               std::logic_error);
}

TEST(KernelSupport, VariantsSayWhyTheyDecline) {
  const DeviceCaps caps = h100();
  const ProblemShape odd = layer_norm_rows(4, 1000003);
  EXPECT_NE(unsupported_reason("layer_norm.split_row", odd, caps), std::nullopt);
  EXPECT_NE(unsupported_reason("layer_norm.two_phase", odd, caps), std::nullopt);
  EXPECT_NE(unsupported_reason("layer_norm.warp_per_row", odd, caps), std::nullopt);
  for (const char* id : {"layer_norm.naive", "layer_norm.block_per_row", "layer_norm.default"})
    EXPECT_EQ(unsupported_reason(id, odd, caps), std::nullopt) << id;
  // A row of 32M floats (128 MB) does not fit in 132 x 227 KB of shared memory.
  const auto too_long =
      unsupported_reason("layer_norm.split_row", layer_norm_rows(2, int64_t{1} << 25), caps);
  ASSERT_NE(too_long, std::nullopt);
  EXPECT_NE(too_long->find("shared memory"), std::string::npos) << *too_long;
  // A kernel asked for another op's problem declines too.
  EXPECT_NE(unsupported_reason("group_norm.naive", odd, caps), std::nullopt);
}

TEST(SplitPlan, CutsTheCoreProblemsAcrossAllSms) {
  const auto a = kernels::plan_split(core_problem("A_layer_norm").shape, h100());
  EXPECT_TRUE(a.unsupported.empty()) << a.unsupported;
  EXPECT_EQ(a.sets, 1);  // a 16 MB row needs most of the chip's shared memory
  EXPECT_EQ(a.blocks_per_segment, 132);
  EXPECT_EQ(a.smem_bytes, 7944u * 16);  // ceil(1048576 float4 / 132)

  const auto b = kernels::plan_split(core_problem("B_group_norm").shape, h100());
  EXPECT_TRUE(b.unsupported.empty()) << b.unsupported;
  EXPECT_EQ(b.sets, 3);  // three 8 MB groups in flight
  EXPECT_EQ(b.blocks_per_segment, 44);
  EXPECT_LE(b.smem_bytes, h100().shared_memory_per_block_optin - kernels::kSplitStaticSmemReserve);
}

TEST(SplitPlan, WorkspaceHoldsCountersAndPartials) {
  const ProblemShape& b = core_problem("B_group_norm").shape;
  EXPECT_EQ(kernels::split_arrivals_bytes(b), 896u * 4);
  EXPECT_EQ(kernels::split_segment_workspace(b, kernels::plan_split(b, h100())),
            896u * 4 + 896u * 44 * sizeof(kernels::SlicePartial));
}

ProblemShape group_norm_groups(int64_t n, int64_t channels, int64_t spatial, int64_t groups) {
  return make_problem_shape(Op::group_norm, {n, channels, spatial}, {}, groups, 1e-5, 1.0, true);
}

TEST(LookaheadPlan, CutsProblemBIntoEvenPiecesThatCoverEachGroup) {
  const auto b = kernels::plan_lookahead(core_problem("B_group_norm").shape, h100());
  ASSERT_EQ(b.unsupported, "");
  EXPECT_EQ(b.blocks, 132);
  EXPECT_EQ(b.chunk_vecs, kernels::kLookaheadDataThreads * kernels::kLookaheadVecsPerThread);
  EXPECT_EQ(b.chunks_per_segment, 3);  // 524288 float4s over 132 blocks in chunks of 1440
  EXPECT_EQ(b.piece_vecs, 1324);       // ceil(524288 / (132 * 3))
  EXPECT_GE(int64_t{b.blocks} * b.chunks_per_segment * b.piece_vecs, 524288);
  EXPECT_LT(int64_t{b.blocks} * b.chunks_per_segment * (b.piece_vecs - 1), 524288);
  EXPECT_LE(b.piece_vecs, b.chunk_vecs);
  EXPECT_EQ(b.lead_chunks, kernels::kLookaheadLeadChunks);
  EXPECT_EQ(b.ring_chunks, 3 + kernels::kLookaheadLeadChunks + kernels::kLookaheadPrefetchChunks);
  EXPECT_EQ(b.smem_bytes, static_cast<size_t>(b.ring_chunks) * b.chunk_vecs * 16);
  EXPECT_LE(b.smem_bytes,
            h100().shared_memory_per_block_optin - kernels::kLookaheadStaticSmemReserve);
}

TEST(LookaheadPlan, LeadStaysBelowAGroupSoTheDoubleBufferedStatisticsAreSafe) {
  // 2 x 12 x 16 with 12 groups: groups of 16 elements, one chunk each.
  const auto tiny = kernels::plan_lookahead(group_norm_groups(2, 12, 16, 12), h100());
  ASSERT_EQ(tiny.unsupported, "");
  EXPECT_EQ(tiny.chunks_per_segment, 1);
  EXPECT_EQ(tiny.lead_chunks, 0);
  EXPECT_EQ(tiny.piece_vecs, 1);
  for (int lead = 0; lead < 8; ++lead) {
    const auto p = kernels::plan_lookahead(core_problem("B_group_norm").shape, h100(), 3, lead, 1);
    EXPECT_LT(p.lead_chunks, p.chunks_per_segment) << lead;
  }
}

TEST(LookaheadPlan, DeclinesGroupsItCannotHoldOrCut) {
  // One group of 64 MB: its chunks do not fit in one SM's ring.
  const auto huge = group_norm_groups(1, 64, 1 << 18, 1);
  const auto reason = unsupported_reason("group_norm.lookahead", huge, h100());
  ASSERT_NE(reason, std::nullopt);
  EXPECT_NE(reason->find("ring"), std::string::npos) << *reason;
  const auto odd = group_norm_groups(2, 4, 3, 2);  // groups of 6 elements
  EXPECT_NE(unsupported_reason("group_norm.lookahead", odd, h100()), std::nullopt);
  DeviceCaps no_cooperative = h100();
  no_cooperative.cooperative_launch = false;
  EXPECT_NE(kernels::plan_lookahead(core_problem("B_group_norm").shape, no_cooperative).unsupported,
            "");
}

TEST(LookaheadPlan, WorkspaceHoldsCountersAndAPartialPerGroupAndBlock) {
  const ProblemShape& b = core_problem("B_group_norm").shape;
  EXPECT_EQ(kernels::split_arrivals_bytes(b), 896u * 4);
  EXPECT_EQ(kernels::lookahead_workspace(b, kernels::plan_lookahead(b, h100())),
            896u * 4 + 896u * 132 * sizeof(kernels::SlicePartial));
}

TEST(Dispatch, PicksTheMeasuredFastestVariantForTheCoreProblems) {
  EXPECT_EQ(chosen("layer_norm.default", core_problem("A_layer_norm").shape),
            "layer_norm.two_phase");
  EXPECT_EQ(chosen("group_norm.default", core_problem("B_group_norm").shape),
            "group_norm.lookahead");
  EXPECT_EQ(chosen("layer_norm_gelu_scale.default", core_problem("C_layer_norm_gelu_scale").shape),
            "layer_norm_gelu_scale.warp_per_row");
}

TEST(Dispatch, TheDefaultRunsTheChosenVariantsPlan) {
  const ProblemShape& b = core_problem("B_group_norm").shape;
  const KernelPlan chosen_plan = plan_kernel(*find_kernel("group_norm.default"), b, h100());
  const KernelPlan direct = plan_kernel(*find_kernel("group_norm.lookahead"), b, h100());
  EXPECT_FALSE(chosen_plan.unsupported);
  EXPECT_EQ(chosen_plan.workspace_bytes, direct.workspace_bytes);
  EXPECT_TRUE(chosen_plan.launch);
  EXPECT_EQ(find_kernel("group_norm.default")->description,
            "dispatch: lookahead (groups >= 64K elements), split_group (groups >= 64K "
            "elements), grid_registers (channels-last x of 1 MB or more), cluster_tiles "
            "(channels-last x up to 8 MB), channel_sums (channels-last x up "
            "to 24 MB), grid_tiles (16-bit, "
            "channels-last or weight without bias), "
            "block_per_group");
}

TEST(Dispatch, FallsBackByShape) {
  EXPECT_EQ(chosen("layer_norm.default", layer_norm_rows(16, 1 << 22, false)),
            "layer_norm.split_row");
  EXPECT_EQ(chosen("layer_norm.default", layer_norm_rows(64, 4096)), "layer_norm.block_per_row");
  EXPECT_EQ(chosen("layer_norm.default", layer_norm_rows(5, 63)), "layer_norm.block_per_row");
  EXPECT_EQ(chosen("layer_norm.default", layer_norm_rows(2, 1000003)), "layer_norm.block_per_row");
  EXPECT_EQ(chosen("layer_norm.default", layer_norm_rows(9, 64)), "layer_norm.warp_per_row");
  const ProblemShape small_groups =
      make_problem_shape(Op::group_norm, {2, 12, 4, 4}, {}, 12, 1e-5, 1.0, true);
  EXPECT_EQ(chosen("group_norm.default", small_groups), "group_norm.block_per_group");
  // Groups of 24 MB: too long for the lookahead rings, not for the split kernel's slices.
  EXPECT_EQ(chosen("group_norm.default", group_norm_groups(1, 24, 1 << 18, 1)),
            "group_norm.split_group");
}

}  // namespace
}  // namespace normbench
