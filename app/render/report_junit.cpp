#include "app/render/report_junit.hpp"

#include <fmt/format.h>

#include <vector>

#include "app/render/report_format.hpp"
#include "app/render/xml_text.hpp"

namespace normbench {

namespace {

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  void add(KernelStatus s) {
    ++tests;
    failures += s == KernelStatus::failed;
    errors += s == KernelStatus::error || s == KernelStatus::not_run;
    skipped += s == KernelStatus::not_supported || s == KernelStatus::skipped;
  }
  std::string attributes() const {
    return fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"", tests, failures,
                       errors, skipped);
  }
};

// What a reader of the CI log wants to know of a kernel besides its verdict.
std::string summary_text(const ReportProblem& p, const ReportKernel& k) {
  std::vector<std::string> parts;
  if (k.timing)
    parts.push_back(fmt::format("median {} ({} samples)", format_time(k.timing->median_ms),
                                k.timing->samples_ms.size()));
  if (k.gb_per_s) parts.push_back(format_gb_per_s(*k.gb_per_s) + " GB/s");
  if (k.percent_of_copy) parts.push_back(format_percent(*k.percent_of_copy) + " of copy");
  if (k.vs_baseline) parts.push_back(format_speedup(*k.vs_baseline) + " " + baseline_header(p));
  if (k.vs_torch_eager) parts.push_back(format_speedup(*k.vs_torch_eager) + " vs torch.eager");
  if (k.vs_torch_compile)
    parts.push_back(format_speedup(*k.vs_torch_compile) + " vs torch.compile");
  if (k.max_abs_error) parts.push_back(fmt::format("max abs error {:.2e}", *k.max_abs_error));
  if (k.device) parts.push_back(fmt::format("GPU {}", *k.device));
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::string verdict_element(const ReportKernel& k) {
  const std::string reason = k.reason.empty() ? std::string(to_string(k.status)) : k.reason;
  const std::string message = xml_escape(reason);
  switch (k.status) {
    case KernelStatus::passed:
      return "";
    case KernelStatus::failed:
      return "      <failure type=\"failed\" message=\"" + message + "\">" + message +
             "</failure>\n";
    case KernelStatus::error:
    case KernelStatus::not_run:
      return std::string("      <error type=\"") + to_string(k.status) + "\" message=\"" + message +
             "\">" + message + "</error>\n";
    case KernelStatus::not_supported:
    case KernelStatus::skipped:
      return "      <skipped message=\"" +
             xml_escape(std::string(k.status == KernelStatus::not_supported ? "not supported: "
                                                                            : "skipped: ") +
                        reason) +
             "\"/>\n";
  }
  return "";
}

}  // namespace

std::string render_junit(const ReportModel& model) {
  const bool several = model.sources.size() > 1;
  Counts all;
  std::string suites;
  for (const ReportProblem& p : model.problems) {
    Counts counts;
    std::string cases;
    for (const ReportKernel& k : p.kernels) {
      counts.add(k.status);
      all.add(k.status);
      const std::string name = k.id + (several ? " [" + model.sources[k.source].label + "]" : "");
      cases += "    <testcase classname=\"" + xml_escape(p.id) + "\" name=\"" + xml_escape(name) +
               "\">\n" + verdict_element(k);
      const std::string out = summary_text(p, k);
      if (!out.empty()) cases += "      <system-out>" + xml_escape(out) + "</system-out>\n";
      cases += "    </testcase>\n";
    }
    suites += "  <testsuite name=\"" + xml_escape(p.id) + "\" " + counts.attributes() + ">\n" +
              cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"normbench\" " +
         all.attributes() + ">\n" + suites + "</testsuites>\n";
}

}  // namespace normbench
