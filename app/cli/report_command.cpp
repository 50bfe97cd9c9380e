// `normbench report`: merge run reports (one run, the shards of one, runs of other kernels on
// the same config) into one HTML page with charts, Markdown tables, JUnit XML
// for CI systems or CSV for spreadsheets.
#include <memory>

#include "app/cli/command.hpp"
#include "app/cli/non_empty_option.hpp"

#include <cstdio>

#include "app/render/report_csv.hpp"
#include "app/render/report_html.hpp"
#include "app/render/report_junit.hpp"
#include "app/render/report_markdown.hpp"
#include "app/render/report_model.hpp"
#include "app/results/report_reader.hpp"
#include "app/util/atomic_file.hpp"
#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string out;              // FILE.html, .md, .xml, .csv, or "-" for standard output
  std::string format = "auto";  // auto (from the --out extension), html, markdown, summary,
                                // junit, csv
  bool allow_mismatch = false;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

// "html", "markdown", "junit" or "csv", from --format or else from the extension of --out.
std::string output_format(const ReportOptions& o) {
  if (o.format != "auto") return o.format;
  if (o.out == "-") return "markdown";
  const std::string out = lower(o.out);
  if (ends_with(out, ".html") || ends_with(out, ".htm")) return "html";
  if (ends_with(out, ".md") || ends_with(out, ".markdown")) return "markdown";
  if (ends_with(out, ".xml")) return "junit";
  if (ends_with(out, ".csv")) return "csv";
  throw UsageError("--out " + shown(o.out) +
                   ": cannot tell the format from the name; allowed: a name ending in .html, "
                   ".htm, .md, .markdown, .xml (JUnit) or .csv, or --format "
                   "html|markdown|junit|csv");
}

std::string render(const ReportModel& model, const std::string& format) {
  if (format == "html") return render_html(model);
  if (format == "junit") return render_junit(model);
  if (format == "csv") return render_csv(model);
  if (format == "summary") return render_markdown_summary(model);
  return render_markdown(model);
}
int report(const ReportOptions& o) {
  const std::string format = output_format(o);
  if (o.out != "-") {
    check_output_path(o.out);  // before reading the inputs, and before creating any folder
    refuse_overwriting_inputs("--out", o.out, o.inputs);
  }
  std::vector<LoadedReport> reports;
  for (const auto& path : o.inputs) reports.push_back(read_report_file(path));
  const ReportModel model = merge_reports(reports, o.allow_mismatch);
  const std::string text = render(model, format);
  for (const auto& w : model.warnings) std::fprintf(stderr, "normbench: warning: %s\n", w.c_str());
  if (o.out == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    write_file_atomically(o.out, text);
    std::printf("report: %s (%zu problems from %zu reports)\n", o.out.c_str(),
                model.problems.size(), model.sources.size());
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<ReportOptions>();
  ReportOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Merge JSON reports of normbench run by problem into an HTML "
      "page with charts, Markdown tables, JUnit XML (a test case per problem and kernel) or CSV "
      "(a row per problem and kernel) (no GPU needed)");
  cmd->add_option("reports", o.inputs, "Report files (JSON, schema_version 1 or 2)")->required();
  cmd->add_option("--out,-o", o.out,
                  "Output: FILE.html, FILE.md, FILE.xml (JUnit), FILE.csv, or - for standard "
                  "output")
      ->required()
      ->check(non_empty());
  cmd->add_option("--format", o.format,
                  "Output format: html, markdown, junit, csv, or summary (the Markdown summary "
                  "table alone, for a README) (default: from the --out extension; Markdown for -)")
      ->check(CLI::IsMember({"auto", "html", "markdown", "summary", "junit", "csv"}));
  cmd->add_flag("--allow-mismatch", o.allow_mismatch,
                "Merge reports from different GPU models, or with different problems under one "
                "id, with a warning instead of refusing");
  cmd->callback([options, &context] { context.exit_code = report(*options); });
}

}  // namespace normbench
