// The LLM row kernels on a described H100 (no GPU needed): how row_in_registers lays LLM
// rows (bfloat16, float16, float32) over a block, what it declines and why, which variant each
// `<op>.default` picks for the new formats, that the float32 problems normbench ships keep their
// choices, and that the naive and general variants take every format.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "kernels/families/wide_rows_plan.hpp"
#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

DeviceCaps h100() {
  return testing::described_h100();
}

ProblemShape rows_of(Op op, int64_t rows, int64_t row, DType dtype, DType param_dtype,
                     bool affine = true, bool bias = true) {
  return make_problem_shape(op, {rows, row}, {row}, 0, 1e-5, 1.0, affine,
                            ProblemFormat{dtype, param_dtype, Layout::nchw, bias});
}

ProblemShape bf16_rows(Op op, int64_t rows, int64_t row) {
  return rows_of(op, rows, row, DType::bfloat16, DType::bfloat16);
}

std::string chosen(Op op, const ProblemShape& p) {
  const KernelVariant* dispatcher = find_kernel(std::string(op_name(op)) + ".default");
  if (!dispatcher) return "(no default)";
  const KernelPlan plan = plan_kernel(*dispatcher, p, h100());
  return plan.unsupported ? "(declined: " + *plan.unsupported + ")" : plan.dispatches_to;
}

std::optional<std::string> declined(const std::string& id, const ProblemShape& p) {
  const KernelVariant* v = find_kernel(id);
  if (!v) return "(no kernel " + id + ")";
  return plan_kernel(*v, p, h100()).unsupported;
}

constexpr Op kRowOps[] = {Op::layer_norm, Op::layer_norm_gelu_scale, Op::rms_norm,
                          Op::add_rms_norm};

std::string id_of(Op op, const char* variant) {
  return std::string(op_name(op)) + "." + variant;
}

TEST(WideRowsPlan, SplitsLlmRowsEvenlyOverABlock) {
  struct Case {
    DType dtype;
    int64_t row;
    int vectors, per_thread, threads;
  };
  const Case cases[] = {
      {DType::bfloat16, 4096, 512, 4, 128},   {DType::bfloat16, 5120, 640, 4, 160},
      {DType::bfloat16, 8192, 1024, 4, 256},  {DType::float16, 4096, 512, 4, 128},
      {DType::float16, 5120, 640, 4, 160},    {DType::float16, 8192, 1024, 4, 256},
      {DType::bfloat16, 1024, 128, 4, 32},    {DType::bfloat16, 16384, 2048, 8, 256},
      {DType::bfloat16, 32768, 4096, 8, 512}, {DType::float32, 4096, 1024, 4, 256},
      {DType::float32, 5120, 1280, 8, 160},   {DType::float32, 8192, 2048, 8, 256},
      {DType::float32, 16384, 4096, 8, 512},
  };
  for (const Case& c : cases) {
    const auto plan =
        kernels::plan_wide_rows(rows_of(Op::rms_norm, 32768, c.row, c.dtype, c.dtype));
    const std::string what = std::string(dtype_name(c.dtype)) + " " + std::to_string(c.row);
    ASSERT_EQ(plan.unsupported, "") << what;
    EXPECT_EQ(plan.vector_elements, c.dtype == DType::float32 ? 4 : 8) << what;
    EXPECT_EQ(plan.row_vectors, c.vectors) << what;
    EXPECT_EQ(plan.vectors_per_thread, c.per_thread) << what;
    EXPECT_EQ(plan.threads, c.threads) << what;
    // Every vector has a thread and no thread is idle on these sizes.
    EXPECT_EQ(int64_t{plan.threads} * plan.vectors_per_thread, c.vectors) << what;
  }
}

TEST(WideRowsPlan, TwoVectorsAThreadWhereEveryRowStartsAtOnce) {
  // bf16 4096: 256 threads of 2 instead of 128 of 4; 8192: 512 of 2; 16384 would need 1024.
  const auto small = kernels::plan_wide_rows(bf16_rows(Op::rms_norm, 32, 4096), true);
  ASSERT_EQ(small.unsupported, "");
  EXPECT_EQ(small.vectors_per_thread, kernels::kWideRowsLatencyVectors);
  EXPECT_EQ(small.threads, 256);
  const auto large = kernels::plan_wide_rows(bf16_rows(Op::rms_norm, 32, 8192), true);
  EXPECT_EQ(large.vectors_per_thread, kernels::kWideRowsLatencyVectors);
  EXPECT_EQ(large.threads, 512);
  const auto too_wide = kernels::plan_wide_rows(bf16_rows(Op::rms_norm, 32, 16384), true);
  EXPECT_EQ(too_wide.vectors_per_thread, kernels::kWideRowsManyVectors);
  EXPECT_EQ(too_wide.threads, 256);
  // Odd rows still get whole warps: 129 vectors, 65 threads of 2, three warps.
  const auto odd = kernels::plan_wide_rows(bf16_rows(Op::layer_norm, 10, 1032), true);
  EXPECT_EQ(odd.threads, 96);
  EXPECT_GE(int64_t{odd.threads} * odd.vectors_per_thread, odd.row_vectors);
}

TEST(WideRowsPlan, LatencyFormKeepsEveryRowStartingAtOnce) {
  using kernels::pick_latency_form;
  using kernels::WideRowsForm;
  // Exact rows take the unchecked kernel while its occupancy holds every row (1 block an SM up to
  // 132 rows on an H100, 4 at 512 rows).
  EXPECT_EQ(pick_latency_form(1, 3, 3), WideRowsForm::exact_fit);
  EXPECT_EQ(pick_latency_form(4, 4, 5), WideRowsForm::exact_fit);
  // Its extra registers would leave rows for a second wave: the guarded kernel.
  EXPECT_EQ(pick_latency_form(4, 3, 4), WideRowsForm::guarded);
  // Rows that are not exactly threads x 2 vectors never take it (occupancy 0).
  EXPECT_EQ(pick_latency_form(1, 0, 2), WideRowsForm::guarded);
  // Neither holds them all (512 threads of 40 registers: 3 an SM): the four-block bounds.
  EXPECT_EQ(pick_latency_form(4, 3, 3), WideRowsForm::four_blocks);
  EXPECT_EQ(pick_latency_form(4, 0, 3), WideRowsForm::four_blocks);
}

TEST(WideRowsPlan, CoversOddRowsWithWholeWarps) {
  // 1032 bf16 = 129 vectors: 33 threads' worth, rounded up to two warps.
  const auto plan = kernels::plan_wide_rows(bf16_rows(Op::layer_norm, 10, 1032));
  ASSERT_EQ(plan.unsupported, "");
  EXPECT_EQ(plan.threads, 64);
  EXPECT_EQ(plan.threads % 32, 0);
  EXPECT_GE(int64_t{plan.threads} * plan.vectors_per_thread, plan.row_vectors);
  // 1025 vectors need more than 256 threads of 4: 8 each, 129 threads, 160 with whole warps.
  const auto many = kernels::plan_wide_rows(bf16_rows(Op::layer_norm, 10, 1025 * 8));
  ASSERT_EQ(many.unsupported, "");
  EXPECT_EQ(many.vectors_per_thread, 8);
  EXPECT_EQ(many.threads, 160);
}

TEST(WideRowsPlan, DeclinesWithReasons) {
  // Not whole 16-byte vectors.
  for (const ProblemShape& p :
       {bf16_rows(Op::rms_norm, 8, 4100),
        rows_of(Op::rms_norm, 8, 4098, DType::float32, DType::float32),
        rows_of(Op::rms_norm, 8, 1000003, DType::float16, DType::float32)}) {
    const auto why = declined("rms_norm.row_in_registers", p);
    ASSERT_NE(why, std::nullopt) << p.segment_size;
    EXPECT_NE(why->find("not a multiple of"), std::string::npos) << *why;
    EXPECT_NE(why->find("16-byte vector"), std::string::npos) << *why;
  }
  // Longer than 512 threads x 8 vectors.
  const auto too_long =
      declined("layer_norm.row_in_registers", bf16_rows(Op::layer_norm, 4, 65536));
  ASSERT_NE(too_long, std::nullopt);
  EXPECT_NE(too_long->find("does not fit in registers"), std::string::npos) << *too_long;
  EXPECT_NE(too_long->find("32768 bfloat16"), std::string::npos) << *too_long;
  const auto fp32_long = declined("rms_norm.row_in_registers",
                                  rows_of(Op::rms_norm, 4, 32768, DType::float32, DType::float32));
  ASSERT_NE(fp32_long, std::nullopt);
  EXPECT_NE(fp32_long->find("16384 float32"), std::string::npos) << *fp32_long;
  EXPECT_EQ(declined("rms_norm.row_in_registers",
                     rows_of(Op::rms_norm, 4, 16384, DType::float32, DType::float32)),
            std::nullopt);
}

TEST(RowKernels, EveryRowOpHasTheFastVariantForEveryFormat) {
  for (Op op : kRowOps)
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (bool bias : {true, false}) {
          const ProblemShape p = rows_of(op, 4096, 4096, dtype, params, true, bias);
          EXPECT_EQ(declined(id_of(op, "row_in_registers"), p), std::nullopt)
              << op_name(op) << " " << dtype_name(dtype) << " " << dtype_name(params);
        }
}

TEST(RowKernels, DefaultsSendLlmRowsToTheFastVariant) {
  for (Op op : kRowOps)
    for (DType dtype : {DType::bfloat16, DType::float16})
      for (int64_t hidden : {4096, 5120, 8192})
        for (int64_t rows : {4096, 32768}) {
          EXPECT_EQ(chosen(op, rows_of(op, rows, hidden, dtype, dtype)),
                    id_of(op, "row_in_registers"))
              << op_name(op) << " " << dtype_name(dtype) << " " << rows << "x" << hidden;
          EXPECT_EQ(chosen(op, rows_of(op, rows, hidden, dtype, DType::float32)),
                    id_of(op, "row_in_registers"))
              << op_name(op) << " " << dtype_name(dtype) << " with float32 weights";
        }
  // Short 16-bit rows: warp_per_row takes float32 only.
  EXPECT_EQ(chosen(Op::layer_norm_gelu_scale, bf16_rows(Op::layer_norm_gelu_scale, 4096, 64)),
            "layer_norm_gelu_scale.row_in_registers");
  // LayerNorm without bias, in float32 too; RMSNorm in float32 (no committed choice to keep).
  EXPECT_EQ(chosen(Op::layer_norm,
                   rows_of(Op::layer_norm, 64, 4096, DType::float32, DType::float32, true, false)),
            "layer_norm.row_in_registers");
  EXPECT_EQ(chosen(Op::rms_norm, rows_of(Op::rms_norm, 64, 4096, DType::float32, DType::float32)),
            "rms_norm.row_in_registers");
}

TEST(RowKernels, DefaultsFallBackToTheGeneralKernel) {
  for (Op op : kRowOps) {
    EXPECT_EQ(chosen(op, bf16_rows(op, 8, 4100)), id_of(op, "block_per_row")) << op_name(op);
    EXPECT_EQ(chosen(op, bf16_rows(op, 2, 1 << 17)), id_of(op, "block_per_row")) << op_name(op);
    EXPECT_EQ(chosen(op, rows_of(op, 3, 63, DType::float16, DType::float32)),
              id_of(op, "block_per_row"))
        << op_name(op);
  }
}

TEST(RowKernels, ClassicFloat32ProblemsKeepTheirChoices) {
  // Float32 with weight and bias (or neither): the rule of row_in_registers does not apply, so
  // the defaults choose what they chose before it (NOTES.md: not measured against the general
  // kernel yet).
  EXPECT_EQ(
      chosen(Op::layer_norm, rows_of(Op::layer_norm, 64, 4096, DType::float32, DType::float32)),
      "layer_norm.block_per_row");
  EXPECT_EQ(
      chosen(Op::layer_norm, rows_of(Op::layer_norm, 300, 256, DType::float32, DType::float32)),
      "layer_norm.warp_per_row");
  const RunConfig builtin = builtin_config();
  std::vector<const ProblemConfig*> problems;
  std::vector<RunConfig> shipped;
  for (const char* name : {"smoke", "edge", "kernelbench_ablation"})
    shipped.push_back(
        load_config_file(std::string(NORMBENCH_SOURCE_DIR) + "/configs/" + name + ".json"));
  for (const auto& p : builtin.problems) problems.push_back(&p);
  for (const auto& c : shipped)
    for (const auto& p : c.problems) problems.push_back(&p);
  for (const ProblemConfig* p : problems) {
    if (!p->shape.is_classic()) continue;
    const std::string choice = chosen(p->shape.op, p->shape);
    EXPECT_EQ(choice.find("row_in_registers"), std::string::npos) << p->id << ": " << choice;
    EXPECT_EQ(choice.find("(declined"), std::string::npos) << p->id << ": " << choice;
  }
}

TEST(RowKernels, NaiveAndGeneralVariantsTakeEveryFormat) {
  for (Op op : kAllOps) {
    if (op == Op::channel_rms_norm) continue;  // not a row op: channel_kernels_plan_test.cpp
    if (is_backward(op)) continue;             // backward_kernels_plan_test.cpp
    const bool grouped = op == Op::group_norm || op == Op::group_norm_silu;
    const std::string general = grouped ? "block_per_group" : "block_per_row";
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
          for (bool bias : {true, false}) {
            if (layout == Layout::nhwc && !grouped) continue;
            const ProblemFormat format{dtype, params, layout, bias};
            const ProblemShape p =
                grouped ? make_problem_shape(op, {2, 12, 5, 7}, {}, 3, 1e-5, 1.0, true, format)
                        : make_problem_shape(op, {6, 1000}, {1000}, 0, 1e-5, 1.0, true, format);
            const std::string what = std::string(op_name(op)) + " " +
                                     std::string(dtype_name(dtype)) + " " +
                                     std::string(layout_name(layout)) + (bias ? "" : " no bias");
            EXPECT_EQ(declined(id_of(op, "naive"), p), std::nullopt) << what;
            EXPECT_EQ(declined(id_of(op, general.c_str()), p), std::nullopt) << what;
            const auto plan = plan_kernel(*find_kernel(id_of(op, "default")), p, h100());
            EXPECT_FALSE(plan.unsupported) << what;
            EXPECT_TRUE(plan.launch) << what;
          }
  }
}

TEST(RowKernels, FloatOnlyVariantsDeclineTheNewFormats) {
  // The float32 variants declare no new format: the registry declines for them.
  const ProblemShape bf16 = bf16_rows(Op::layer_norm, 64, 4096);
  for (const char* id : {"layer_norm.warp_per_row", "layer_norm.two_phase", "layer_norm.split_row"})
    EXPECT_NE(declined(id, bf16), std::nullopt) << id;
}

}  // namespace
}  // namespace normbench
