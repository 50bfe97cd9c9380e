// Reading one JSON report (schema_version 1) into the report model, checking every field that
// `normbench report` uses. Fields it does not use are ignored, so newer writers stay readable.
#include <fstream>
#include <set>
#include <sstream>

#include "app/render/report_model.hpp"
#include "app/results/report_json.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_checks.hpp"

namespace normbench {

namespace {

bool present(const CheckedJson& node, const char* key) {
  return node.has(key) && !node.node().at(key).is_null();
}

std::optional<double> optional_number(const CheckedJson& node, const char* key) {
  if (!present(node, key)) return std::nullopt;
  return node.at(key).as_finite_number();
}

std::string optional_string(const CheckedJson& node, const char* key) {
  return present(node, key) ? node.at(key).as_string() : std::string();
}

void expect_object(const CheckedJson& node) {
  if (!node.node().is_object())
    node.fail("expected an object, got " + node.node().dump().substr(0, 60));
}

// "a/b/run.json" -> "run"
std::string file_stem(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

ReportTiming read_timing(const CheckedJson& t) {
  expect_object(t);
  ReportTiming r;
  r.median_ms = t.at("median_ms").as_number_above(0.0);
  r.mean_ms = optional_number(t, "mean_ms").value_or(r.median_ms);
  r.stdev_ms = optional_number(t, "stdev_ms").value_or(0.0);
  r.min_ms = optional_number(t, "min_ms").value_or(r.median_ms);
  r.max_ms = optional_number(t, "max_ms").value_or(r.median_ms);
  r.relative_stdev =
      optional_number(t, "relative_stdev").value_or(r.mean_ms > 0.0 ? r.stdev_ms / r.mean_ms : 0.0);
  if (present(t, "samples")) r.samples = t.at("samples").as_int(0, INT64_MAX);
  r.stop_reason = optional_string(t, "stop_reason");
  if (r.min_ms > r.median_ms || r.median_ms > r.max_ms)
    t.fail("min_ms <= median_ms <= max_ms does not hold");
  return r;
}

ReportKernel read_kernel(const CheckedJson& k) {
  static const std::set<std::string> kStatuses = {"passed", "failed", "not_supported", "error",
                                                  "skipped"};
  expect_object(k);
  ReportKernel r;
  r.id = k.at("id").as_string();
  if (r.id.empty()) k.at("id").fail("expected a non-empty kernel id");
  r.description = optional_string(k, "description");
  if (present(k, "is_baseline")) r.is_baseline = k.at("is_baseline").as_bool();
  r.status = k.at("status").as_string();
  if (!kStatuses.count(r.status))
    k.at("status").fail("unknown status \"" + r.status +
                        "\"; allowed: passed, failed, not_supported, error, skipped");
  r.reason = optional_string(k, "reason");
  if (present(k, "verification")) {
    const CheckedJson v = k.at("verification");
    expect_object(v);
    r.verified = v.at("passed").as_bool();
    r.max_abs_error = optional_number(v, "max_abs_error");
    r.max_rel_error = optional_number(v, "max_rel_error");
  }
  // A kernel that did not pass is shown without timing, whatever the report holds.
  if (present(k, "timing")) {
    ReportTiming timing = read_timing(k.at("timing"));
    if (r.status == "passed") r.timing = timing;
  }
  if (present(k, "bandwidth") && r.timing) {
    const CheckedJson b = k.at("bandwidth");
    expect_object(b);
    r.gb_per_s = optional_number(b, "gb_per_s");
    r.percent_of_copy = optional_number(b, "percent_of_copy");
    if (present(b, "suspicious")) r.suspicious = b.at("suspicious").as_bool();
  }
  return r;
}

// The fields that define a problem's data: two reports agree on a problem when these match.
nlohmann::json problem_identity(const CheckedJson& p, const ReportProblem& problem) {
  nlohmann::json identity = {{"op", problem.op}, {"shape", problem.shape}};
  if (present(p, "config")) {
    const CheckedJson config = p.at("config");
    expect_object(config);
    for (const auto& item : config.node().items())
      if (item.key() != "id" && item.key() != "description" && item.key() != "timing" &&
          item.key() != "trials")
        identity[item.key()] = item.value();
  }
  return identity;
}

ReportProblem read_problem(const CheckedJson& p, nlohmann::json& identity) {
  expect_object(p);
  ReportProblem r;
  r.id = p.at("id").as_string();
  if (r.id.empty()) p.at("id").fail("expected a non-empty problem id");
  r.op = p.at("op").as_string();
  r.shape = p.at("shape").as_dims();
  if (present(p, "min_bytes")) r.min_bytes = p.at("min_bytes").as_int(0, INT64_MAX);
  if (present(p, "config") && p.at("config").has("description"))
    r.description = optional_string(p.at("config"), "description");
  const CheckedJson kernels = p.at("kernels");
  kernels.expect_array();
  for (size_t i = 0; i < kernels.size(); ++i) {
    r.kernels.push_back(read_kernel(kernels.at(i)));
    if (r.kernels.back().is_baseline && r.baseline_id.empty()) r.baseline_id = r.kernels.back().id;
  }
  identity = problem_identity(p, r);
  return r;
}

ReportSource read_source(const CheckedJson& root, const std::string& path) {
  ReportSource s;
  s.path = path;
  s.label = file_stem(path);
  if (present(root, "tool")) {
    const CheckedJson tool = root.at("tool");
    expect_object(tool);
    s.tool = optional_string(tool, "name");
    if (const std::string version = optional_string(tool, "version"); !version.empty())
      s.tool += (s.tool.empty() ? "" : " ") + version;
    if (const std::string rev = optional_string(tool, "git_revision"); !rev.empty())
      s.tool += " (" + rev + ")";
  }
  if (present(root, "device")) {
    const CheckedJson device = root.at("device");
    expect_object(device);
    s.device_name = device.at("name").as_string();
  }
  if (present(root, "copy_bandwidth")) {
    const CheckedJson copy = root.at("copy_bandwidth");
    expect_object(copy);
    s.copy_gb_per_s = copy.at("gb_per_s").as_number_above(0.0);
  }
  s.created_at = optional_string(root, "created_at");
  if (present(root, "config")) {
    const CheckedJson config = root.at("config");
    expect_object(config);
    s.config_name = optional_string(config, "name");
    s.config_hash = optional_string(config, "hash");
  }
  return s;
}

}  // namespace

LoadedReport read_report_text(const std::string& text, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(path + ": not a JSON report: " + e.what());
  }
  const CheckedJson root(doc, path);
  if (!doc.is_object()) root.fail("expected a report object (schema_version 1)");
  const int64_t version = root.at("schema_version").as_int(0, INT64_MAX);
  if (version != kReportSchemaVersion)
    root.at("schema_version")
        .fail("schema_version " + std::to_string(version) +
              " is not supported; allowed: " + std::to_string(kReportSchemaVersion));

  LoadedReport report;
  report.source = read_source(root, path);
  const CheckedJson problems = root.at("problems");
  problems.expect_array();
  std::set<std::string> ids;
  for (size_t i = 0; i < problems.size(); ++i) {
    nlohmann::json identity;
    report.problems.push_back(read_problem(problems.at(i), identity));
    if (!ids.insert(report.problems.back().id).second)
      problems.at(i).at("id").fail("duplicate problem id \"" + report.problems.back().id + "\"");
    report.identities.push_back(std::move(identity));
  }
  return report;
}

LoadedReport read_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open report file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError(path + ": cannot read report file");
  return read_report_text(text.str(), path);
}

}  // namespace normbench
