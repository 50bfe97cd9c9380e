#include "app/render/report_junit.hpp"

#include <fmt/format.h>

#include <vector>

#include "app/render/report_format.hpp"

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

// Appends UTF-8 code point `c` (below 0x110000) to `out`.
void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (c < 0x20 || c == 0x7F)
          append_utf8(out, 0xFFFD);  // not allowed in XML 1.0, even as a reference
        else
          out += ch;  // UTF-8 bytes pass through: the reader only hands out valid UTF-8
    }
  }
  return out;
}

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
