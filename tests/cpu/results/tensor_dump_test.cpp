// --save-tensors: inputs, outputs and the float64 reference as .npy files in the documented
// layout, the reference identical to what the verifier compares against.
#include "app/results/tensor_dump.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app/util/errors.hpp"
#include "app/util/npy.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::TempDir;

// The data bytes of an .npy file written by normbench, after checking its header.
std::string npy_data(const std::string& path, NpyType type, const std::vector<int64_t>& shape) {
  const std::string file = testing::read_text(path);
  const std::string header = npy_header(type, shape);
  EXPECT_EQ(file.substr(0, header.size()), header) << path;
  return file.substr(header.size());
}

RunConfig dump_config() {
  return parse_config(R"({"name": "dump", "problems": [
      {"id": "ln", "op": "layer_norm", "shape": [3, 70000], "normalized_shape": [70000]},
      {"id": "plain", "op": "layer_norm", "shape": [2, 5], "normalized_shape": [5],
       "affine": false}]})",
                      "dump.json");
}

TEST(TensorDump, TrialDirLayout) {
  EXPECT_EQ(trial_dump_dir("out", "A_layer_norm", 2), "out/A_layer_norm/trial2");
}

TEST(TensorDump, InputsOutputAndReference) {
  TempDir dir;
  const RunConfig config = dump_config();
  const ProblemConfig& problem = config.problems[0];
  const ProblemInputs inputs = make_inputs(problem, 42, 2);
  const std::string trial = trial_dump_dir(dir.path(), problem.id, 0);
  save_inputs(trial, inputs);

  const std::string x = npy_data(trial + "/x.npy", NpyType::float32, {3, 70000});
  ASSERT_EQ(x.size(), inputs.x.bytes());
  EXPECT_EQ(std::memcmp(x.data(), inputs.x.begin(), x.size()), 0);
  const std::string w = npy_data(trial + "/weight.npy", NpyType::float32, {70000});
  ASSERT_EQ(w.size(), inputs.weight.bytes());
  EXPECT_EQ(std::memcmp(w.data(), inputs.weight.begin(), w.size()), 0);
  EXPECT_TRUE(std::filesystem::exists(trial + "/bias.npy"));

  save_output(trial, "layer_norm.naive", inputs.x);
  EXPECT_EQ(npy_data(trial + "/layer_norm.naive.npy", NpyType::float32, {3, 70000}), x);

  // Rows of 70000 are two pieces each: the file must hold every piece, in order.
  const NormalizationReference reference(problem.shape, inputs.x.begin(), inputs.weight.begin(),
                                         inputs.bias.begin(), 2);
  save_reference(trial, reference, 2);
  std::vector<double> expected(210000);
  for (int64_t p = 0; p < reference.num_pieces(); ++p) {
    const int64_t begin = reference.piece_begin(p);
    reference.expected(begin, reference.piece_end(p) - begin, expected.data() + begin);
  }
  const std::string ref = npy_data(trial + "/reference.npy", NpyType::float64, {3, 70000});
  ASSERT_EQ(ref.size(), expected.size() * sizeof(double));
  EXPECT_EQ(std::memcmp(ref.data(), expected.data(), ref.size()), 0);
}

TEST(TensorDump, NoWeightOrBiasWithoutAffine) {
  TempDir dir;
  const RunConfig config = dump_config();
  save_inputs(dir.path(), make_inputs(config.problems[1], 1, 1));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.npy"});
}

// An unwritable --save-tensors folder is found before the GPU work, not after it.
TEST(TensorDump, AFolderThatCannotBeWrittenIsRefusedUpFront) {
  TempDir dir;
  testing::write_text(dir.file("file"), "");
  const std::string report = dir.file("r.json");
  EXPECT_THROW(check_tensor_root(dir.file("file"), report), UsageError);
  try {
    check_tensor_root(dir.file("file/sub"), report);
    FAIL() << "accepted a folder under a file";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--save-tensors " + dir.file("file/sub") +
                                         ": cannot write there ("),
              std::string::npos)
        << e.what();
  }
  // Checked, and nothing left: the folders are made when the first tensor is written, so that
  // a run refused after the check leaves none.
  check_tensor_root(dir.file("new/tensors"), report);
  EXPECT_FALSE(std::filesystem::exists(dir.file("new")));
}

// The tensors' files would turn the report's path into a folder (or the other way round), and
// the report, written after the whole run, would be lost: refused before it.
TEST(TensorDump, AFolderThatHoldsOrLiesInsideTheReportIsRefused) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> clashes = {
      {"o.json", "o.json"}, {"o.json/", "./x/../o.json"}, {"r/t", "r"}, {"t", "t/r.json"}};
  for (const auto& [root, report] : clashes) {
    try {
      check_tensor_root(dir.file(root), dir.file(report));
      FAIL() << root << " and " << report;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(": holds the report " + dir.file(report) +
                                           " or lies inside it; allowed: a folder apart from "
                                           "the report's path"),
                std::string::npos)
          << e.what();
    }
  }
  check_tensor_root(dir.file("tensors"), dir.file("tensors.json"));
  check_tensor_root(dir.file("a/t"), dir.file("a/r.json"));
}

// A write that fails during the run is recorded, the first one kept, and does not throw: the
// run goes on to write its report.
TEST(TensorDump, AFailedWriteIsRecordedNotThrown) {
  TempDir dir;
  testing::write_text(dir.file("file"), "");
  std::string error;
  const std::vector<int64_t> shape = {2};
  const std::vector<float> values = {1.0f, 2.0f};
  save_or_record(error, [&] { write_npy(dir.file("file/x.npy"), values.data(), shape); });
  EXPECT_NE(error.find(dir.file("file/x.npy") + ": cannot create directory"), std::string::npos)
      << error;
  const std::string first = error;
  save_or_record(error, [&] { write_npy(dir.file("file/y.npy"), values.data(), shape); });
  EXPECT_EQ(error, first);
  std::string none;
  save_or_record(none, [&] { write_npy(dir.file("ok.npy"), values.data(), shape); });
  EXPECT_EQ(none, "");
}

}  // namespace
}  // namespace normbench
