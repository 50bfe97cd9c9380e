#include "app/results/compare_report.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "app/results/report_json.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_checks.hpp"

namespace normbench {

namespace {
const char* const kStatuses[] = {"passed", "failed", "not_supported", "error", "skipped"};

std::string optional_string(const CheckedJson& parent, const std::string& key) {
  if (!parent.has(key) || parent.node().at(key).is_null()) return "";
  return parent.at(key).as_string();
}

ReportKernelEntry parse_kernel(const CheckedJson& k) {
  if (!k.node().is_object()) k.fail("expected a kernel object, got " + k.node().dump());
  ReportKernelEntry entry;
  entry.id = k.at("id").as_string();
  const CheckedJson status = k.at("status");
  entry.status = status.as_string();
  bool known = false;
  for (const char* s : kStatuses) known = known || entry.status == s;
  if (!known)
    status.fail("unknown status \"" + entry.status +
                "\"; allowed: passed, failed, not_supported, error, skipped");
  entry.reason = optional_string(k, "reason");
  const CheckedJson timing = k.at("timing");
  if (timing.node().is_null()) return entry;
  if (!timing.node().is_object()) timing.fail("expected null or a timing object");
  const CheckedJson samples = timing.at("samples_ms");
  samples.expect_array();
  std::vector<double> values;
  values.reserve(samples.size());
  for (size_t i = 0; i < samples.size(); ++i)
    values.push_back(samples.at(i).as_number_at_least(0.0));
  entry.samples_ms = std::move(values);
  return entry;
}

ReportProblemEntry parse_problem(const CheckedJson& p) {
  if (!p.node().is_object()) p.fail("expected a problem object, got " + p.node().dump());
  ReportProblemEntry problem;
  problem.id = p.at("id").as_string();
  const CheckedJson kernels = p.at("kernels");
  kernels.expect_array();
  std::set<std::string> seen;
  for (size_t i = 0; i < kernels.size(); ++i) {
    problem.kernels.push_back(parse_kernel(kernels.at(i)));
    if (!seen.insert(problem.kernels.back().id).second)
      kernels.at(i).at("id").fail("duplicate kernel id \"" + problem.kernels.back().id + "\"");
  }
  return problem;
}
}  // namespace

ComparableReport parse_report(const nlohmann::json& document, const std::string& source) {
  const CheckedJson root(document, source);
  if (!document.is_object()) root.fail("expected a normbench report (a JSON object)");
  const CheckedJson version = root.at("schema_version");
  if (!version.node().is_number_integer() || version.node().get<int64_t>() != kReportSchemaVersion)
    version.fail("this normbench reads schema_version " + std::to_string(kReportSchemaVersion) +
                 ", got " + version.node().dump());

  ComparableReport report;
  ReportInfo& info = report.info;
  info.source = source;
  const CheckedJson device = root.at("device");
  if (!device.node().is_null()) {
    if (!device.node().is_object()) device.fail("expected null or a device object");
    info.device_name = device.at("name").as_string();
  }
  const CheckedJson config = root.at("config");
  if (!config.node().is_object()) config.fail("expected a config object");
  info.config_hash = config.at("hash").as_string();
  info.config_name = optional_string(config, "name");
  info.created_at = optional_string(root, "created_at");
  if (root.has("tool") && root.node().at("tool").is_object())
    info.git_revision = optional_string(root.at("tool"), "git_revision");
  info.aborted = optional_string(root, "aborted");

  const CheckedJson problems = root.at("problems");
  problems.expect_array();
  std::set<std::string> seen;
  for (size_t i = 0; i < problems.size(); ++i) {
    report.problems.push_back(parse_problem(problems.at(i)));
    if (!seen.insert(report.problems.back().id).second)
      problems.at(i).at("id").fail("duplicate problem id \"" + report.problems.back().id + "\"");
  }
  return report;
}

ComparableReport load_report(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(path + ": cannot read the report: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read the report: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError(path + ": cannot read the report: read error");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(path + ": not a valid JSON report: " + e.what());
  }
  return parse_report(document, path);
}

}  // namespace normbench
