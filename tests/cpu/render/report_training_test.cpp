// `normbench report`'s forward-and-backward view, on the committed H100 results of llm.json,
// diffusion.json and training.json: every backward problem whose forward twin (same shape and
// format) is in the reports gets one row, with both defaults, their sum and torch.compile's.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "app/render/report_markdown.hpp"
#include "app/render/report_model.hpp"
#include "app/render/report_training.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

LoadedReport committed(const std::string& config) {
  return read_report_file(
      testing::source_path("results/nvidia-h100-80gb-hbm3/" + config + ".json"));
}

TEST(ReportTraining, PairsEachBackwardProblemWithItsForwardTwin) {
  const ReportModel model =
      merge_reports({committed("llm"), committed("diffusion"), committed("training")}, false);
  const std::vector<TrainingPair> pairs = training_pairs(model);
  std::map<std::string, std::string> forward_of;
  for (const TrainingPair& pair : pairs) forward_of[pair.backward->id] = pair.forward->id;
  // The same shape and format, forward op of the backward one.
  EXPECT_EQ(forward_of["layer_norm_backward_bf16_32k_4096"], "layer_norm_bf16_32k_4096");
  EXPECT_EQ(forward_of["rms_norm_backward_bf16_16k_8192"], "rms_norm_bf16_16k_8192");
  EXPECT_EQ(forward_of["layer_norm_backward_fp16_16k_5120_no_bias"],
            "layer_norm_fp16_16k_5120_no_bias");
  EXPECT_EQ(forward_of["gn_backward_bf16_nhwc_8x512x64x64"], "gn_bf16_nhwc_8x512x64x64");
  EXPECT_EQ(forward_of["gn_backward_bf16_nchw_8x512x64x64"], "gn_bf16_nchw_8x512x64x64");
  for (const TrainingPair& pair : pairs) {
    EXPECT_EQ(pair.forward->op + "_backward", pair.backward->op);
    EXPECT_EQ(pair.forward->shape, pair.backward->shape);
  }
  // Each row: both defaults, their sum and torch.compile's, all timed in these runs.
  const ReportTable table = training_table(model);
  ASSERT_EQ(table.rows.size(), pairs.size());
  for (const auto& row : table.rows) {
    ASSERT_EQ(row.size(), table.headers.size());
    for (size_t c = 2; c < row.size(); ++c) EXPECT_NE(row[c].text, "—") << row[0].text;
  }
  EXPECT_NE(render_markdown(model).find("## Forward and backward"), std::string::npos);
}

TEST(ReportTraining, ProblemsOfAnotherFormatAreNotPaired) {
  // llm.json alone has no backward problem; training.json alone has no forward one.
  EXPECT_TRUE(training_pairs(merge_reports({committed("llm")}, false)).empty());
  const ReportModel backward_only = merge_reports({committed("training")}, false);
  EXPECT_TRUE(training_pairs(backward_only).empty());
  EXPECT_EQ(render_markdown(backward_only).find("## Forward and backward"), std::string::npos);
}

}  // namespace
}  // namespace normbench
