// The normbench binary against hostile inputs, without a GPU: each case once ended in a crash,
// an internal error, a silent default, a hang, a replaced file or exit 0. Each must now exit 2
// with a short message naming what is wrong (or 3 where standard output cannot be written),
// and write nothing. (`run` reaching its GPU exits 3 here: a 2 shows a refusal before it.)
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
using testing::quoted;
using testing::TempDir;

const char* const kConfig = R"({"name": "c", "problems": [{"id": "a", "op": "layer_norm",
    "shape": [4], "normalized_shape": [4]}]})";

class HostileInputs : public ::testing::Test {
 protected:
  // `normbench ARGS` (ARGS shell-quoted) in the test's folder.
  CliRun normbench(const std::string& args) {
    return testing::run_binary(NORMBENCH_BINARY, dir_, args);
  }
  std::vector<std::string> entries() const { return dir_.entries(); }
  TempDir dir_;
};

using testing::contains;

TEST_F(HostileInputs, LongProblemIdIsAUsageErrorNotACrash) {
  nlohmann::json config = nlohmann::json::parse(kConfig);
  config["problems"][0]["id"] = std::string(30000, 'a');
  testing::write_text(dir_.file("long.json"), config.dump());
  for (const std::string command : {"plan --config long.json", "run --config long.json"}) {
    const CliRun r = normbench(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.err.substr(0, 500);
    EXPECT_TRUE(contains(r.err, "long.json: /problems/0/id: \"aaa")) << r.err.substr(0, 500);
    EXPECT_LT(r.err.size(), 500u);
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"long.json"});
}

TEST_F(HostileInputs, AConfigNameCannotPlaceTheDefaultReportElsewhere) {
  fs::create_directory(dir_.file("work"));
  nlohmann::json config = nlohmann::json::parse(kConfig);
  config["name"] = "../escaped";
  testing::write_text(dir_.file("work/c.json"), config.dump());
  const CliRun r = normbench("run --config work/c.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "work/c.json: /name: \"../escaped\" is not a valid name")) << r.err;
}

TEST_F(HostileInputs, EndlessOversizedOrBlockingInputFilesAreRefused) {
  ASSERT_EQ(::mkfifo(dir_.file("fifo.json").c_str(), 0600), 0);
  testing::write_text(dir_.file("big.json"), "");
  fs::resize_file(dir_.file("big.json"), (16 << 20) + 1);  // sparse: costs no disk
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"plan --config /dev/zero", "/dev/zero: cannot read the config: it is a character device"},
      {"run --config fifo.json", "fifo.json: cannot read the config: it is a FIFO"},
      {"plan --config big.json",
       "big.json: cannot read the config: it is 16777217 bytes (16 MiB); allowed: at most "
       "16777216 bytes (16 MiB)"},
      {"compare /dev/zero /dev/zero", "/dev/zero: cannot read the report: it is a character"},
      {"report fifo.json --out r.md", "fifo.json: cannot read the report: it is a FIFO"},
      {"merge /dev/zero --out m.json", "/dev/zero: cannot read the report: it is a character"},
  };
  for (const auto& c : cases) {
    // Under timeout: a hang is a failure, not a stuck test.
    const CliRun r =
        testing::run_binary("timeout", dir_, "20 " + quoted(NORMBENCH_BINARY) + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_.file("r.md")));
  EXPECT_FALSE(fs::exists(dir_.file("m.json")));
}

TEST_F(HostileInputs, AnOutputThatIsNotARegularFileIsNeverReplaced) {
  testing::write_text(dir_.file("c.json"), kConfig);
  testing::write_text(dir_.file("target.json"), "kept");
  fs::create_symlink("target.json", dir_.file("link.json"));
  ASSERT_EQ(::mkfifo(dir_.file("fifo.json").c_str(), 0600), 0);
  const std::string report =
      quoted(testing::source_path("tests/fixtures/h100_kernelbench_v1.json"));
  const std::string shard = quoted(testing::source_path("tests/fixtures/merge/shard1of2.json"));
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"run --config c.json --out link.json", "link.json: exists and is a symbolic link"},
      {"run --config c.json --out fifo.json", "fifo.json: exists and is a FIFO"},
      {"run --config c.json --out newdir/", "newdir/: names a directory"},
      {"report " + report + " --format markdown --out link.json", "link.json: exists and is a"},
      {"report " + report + " --format html --out newdir/", "newdir/: names a directory"},
      {"merge " + shard + " --out fifo.json", "fifo.json: exists and is a FIFO"},
      {"merge " + shard + " --out newdir/", "newdir/: names a directory"},
  };
  for (const auto& c : cases) {
    const CliRun r = normbench(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << "\n" << r.err;
  }
  EXPECT_TRUE(fs::is_symlink(dir_.file("link.json")));
  EXPECT_TRUE(fs::is_fifo(dir_.file("fifo.json")));
  EXPECT_EQ(testing::read_text(dir_.file("target.json")), "kept");
  EXPECT_FALSE(fs::exists(dir_.file("newdir")));
}

// Paths are bytes: one that is not UTF-8 must still give valid JSON, not an internal error.
TEST_F(HostileInputs, PathsThatAreNotUtf8StillGiveJson) {
  const std::string odd = "odd\xff\xfe.json";
  testing::write_text(dir_.file(odd), kConfig);
  const CliRun plan = normbench("plan --json --config " + quoted(odd));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(nlohmann::json::parse(plan.out)["config"]["source"],
            "odd\xef\xbf\xbd\xef\xbf\xbd.json");

  const std::string baseline = testing::source_path("tests/fixtures/compare/baseline.json");
  fs::copy_file(baseline, dir_.file(odd), fs::copy_options::overwrite_existing);
  const CliRun compare = normbench("compare " + quoted(odd) + " " + quoted(baseline) + " --json");
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  EXPECT_EQ(nlohmann::json::parse(compare.out)["baseline"]["path"],
            "odd\xef\xbf\xbd\xef\xbf\xbd.json");
  const CliRun table = normbench("compare " + quoted(odd) + " " + quoted(baseline));
  EXPECT_TRUE(contains(table.out, "baseline:  odd\\xff\\xfe.json (")) << table.out;
}

TEST_F(HostileInputs, EmptyOptionValuesAreRefusedNotTakenAsDefaults) {
  for (const std::string command : {"run", "plan"})
    for (const std::string option :
         {"--config", "--seed", "--shard", "--problem", "--kernel", "--plugin"}) {
      const CliRun r = normbench(command + " " + option + " ''");
      EXPECT_EQ(r.exit_code, 2) << command << " " << option << "\n" << r.err;
      EXPECT_TRUE(contains(r.err, option + ": an empty value")) << r.err;
    }
  for (const std::string args : {"run --out ''", "run --save-tensors ''", "list --plugin ''"}) {
    const CliRun r = normbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, ": an empty value")) << r.err;
  }
  EXPECT_TRUE(entries().empty());
}

// An empty report path said only "normbench: : cannot read the report", and an unknown
// command only "A subcommand is required".
TEST_F(HostileInputs, AnEmptyPathOrAnUnknownCommandIsNamed) {
  for (const std::string args :
       {"compare '' ''", "report '' --out r.md", "merge '' --out m.json"}) {
    const CliRun r = normbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "the path is empty; allowed: a file path")) << args << r.err;
  }
  const CliRun unknown = normbench("frobnicate --config x.json");
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "unknown command \"frobnicate\"; allowed: run, list, plan"))
      << unknown.err;
  EXPECT_TRUE(entries().empty());
}

TEST_F(HostileInputs, FiltersThatSelectNoKernelAreRefused) {
  // The built-in config has no rms_norm problem.
  for (const std::string command : {"plan", "run"}) {
    const CliRun r = normbench(command + " --kernel rms_norm.naive");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.err;
    EXPECT_TRUE(contains(r.err,
                         "--kernel rms_norm.naive: selects no (problem, kernel) pair of <built-in "
                         "configs/kernelbench.json>; allowed: kernels of the selected problems' "
                         "ops (layer_norm, group_norm, layer_norm_gelu_scale)"))
        << r.err;
  }
  const CliRun both = normbench("plan --problem A_layer_norm --kernel group_norm.naive");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_TRUE(contains(both.err, "--problem A_layer_norm --kernel group_norm.naive: selects no"))
      << both.err;
  EXPECT_TRUE(entries().empty());
}

TEST_F(HostileInputs, AnUnwritableTensorFolderIsFoundBeforeTheRun) {
  testing::write_text(dir_.file("c.json"), kConfig);
  testing::write_text(dir_.file("file"), "");
  const CliRun file = normbench("run --config c.json --out r.json --save-tensors file");
  EXPECT_EQ(file.exit_code, 2) << file.err;
  EXPECT_TRUE(contains(file.err, "--save-tensors file: is not a directory")) << file.err;
  const CliRun under = normbench("run --config c.json --out r.json --save-tensors file/sub");
  EXPECT_EQ(under.exit_code, 2) << under.err;
  EXPECT_TRUE(contains(under.err, "--save-tensors file/sub: cannot write there")) << under.err;
  EXPECT_FALSE(fs::exists(dir_.file("r.json")));
}

TEST_F(HostileInputs, OutputThatCannotReachStandardOutputIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string compare =
      "compare " + quoted(testing::source_path("tests/fixtures/compare/baseline.json")) + " " +
      quoted(testing::source_path("tests/fixtures/compare/identical.json"));
  const std::string report =
      "report " + quoted(testing::source_path("tests/fixtures/h100_kernelbench_v1.json"));
  const std::vector<std::string> commands = {
      "list",      "list --json",       "plan --json",      "--help",
      "--version", compare + " --json", report + " --out -"};
  for (const std::string& args : commands) {
    const CliRun r = testing::run_binary(
        "sh", dir_, "-c " + quoted(quoted(NORMBENCH_BINARY) + " " + args + " >/dev/full"));
    EXPECT_EQ(r.exit_code, 3) << args << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, "normbench: cannot write to standard output: No space left"))
        << args << "\n"
        << r.err;
  }
}

// CLI11 read integers in base 0: `--trials 010` ran 8 trials and `--trials 0x10` 16.
TEST_F(HostileInputs, IntegerOptionsAreDecimal) {
  testing::write_text(dir_.file("c.json"), kConfig);
  const CliRun ten = normbench("plan --config c.json --trials 010");
  EXPECT_EQ(ten.exit_code, 0) << ten.err;
  EXPECT_TRUE(contains(ten.out, "10 trials")) << ten.out;
  for (const std::string value : {"0x10", "1e3", "-1", "+5"}) {
    const CliRun r = normbench("plan --config c.json --trials " + quoted(value));
    EXPECT_EQ(r.exit_code, 2) << value << "\n" << r.err;
    EXPECT_TRUE(contains(
        r.err, "--trials: \"" + value + "\" is not a decimal integer; allowed: the digits 0-9"))
        << r.err;
  }
  const std::string baseline = quoted(testing::source_path("tests/fixtures/compare/baseline.json"));
  const CliRun eight = normbench("compare " + baseline + " " + baseline + " --min-samples 010");
  EXPECT_TRUE(contains(eight.out, "at least 10 samples each")) << eight.out << eight.err;
}

// A reader that stops early (`| head`) once killed normbench by SIGPIPE, silently.
TEST_F(HostileInputs, AReaderThatClosesThePipeEarlyGetsExitThreeNotASignal) {
  const std::string decode =
      quoted(testing::source_path("results/nvidia-h100-80gb-hbm3/decode.json"));
  for (const std::string& args :
       {"compare " + decode + " " + decode, "report " + decode + " --out -"}) {
    // The output (100-300 KB) outgrows the pipe's buffer after head has closed it.
    const std::string script = "( " + quoted(NORMBENCH_BINARY) + " " + args +
                               "; echo $? > status ) | head -c 1 > /dev/null";
    testing::run_binary("sh", dir_, "-c " + quoted(script));
    EXPECT_EQ(testing::read_text(dir_.file("status")), "3\n") << args;
  }
}

}  // namespace
}  // namespace normbench
