#include "app/render/report_markdown.hpp"

#include <fmt/format.h>

#include "app/render/report_format.hpp"
#include "app/render/report_summary.hpp"
#include "app/render/report_sweeps.hpp"
#include "app/render/report_training.hpp"
#include "app/util/markdown_text.hpp"

namespace normbench {

namespace {

std::string render_table(const ReportTable& t) {
  std::string out = "|";
  for (const auto& h : t.headers) out += " " + markdown_text(h) + " |";
  out += "\n|";
  for (bool numeric : t.numeric) out += numeric ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) {
      const bool strong =
          cell.style == ReportCell::Style::bad || cell.style == ReportCell::Style::warn;
      const std::string text = markdown_text(cell.text);
      out += " " + (strong ? "**" + text + "**" : text) + " |";
    }
    out += "\n";
  }
  for (size_t i = 0; i < t.notes.size(); ++i)
    out += (i == 0 ? "\n" : "") + std::string("- ") + markdown_text(t.notes[i]) + "\n";
  return out;
}

}  // namespace

std::string render_markdown_summary(const ReportModel& model) {
  return render_table(summary_table(model));
}

std::string render_markdown(const ReportModel& model) {
  std::string out = "# normbench report\n\n";
  out +=
      "Median time of each kernel over its samples, with the 95% confidence interval of the "
      "median (reports of schema 1: the relative standard deviation) and the fastest and "
      "slowest sample. Deterministic: two launches on the same inputs gave bitwise identical "
      "outputs. GB/s is the minimum bytes a kernel must move (x read "
      "and y written once, weight and bias read once) over the median time. % of floor is the "
      "problem's floor over the median: the floor is its minimum bytes at the report's "
      "measured device-to-device copy bandwidth or, where longer, the latency floor (the "
      "shortest launch that reads and writes a few cache lines, with L2 evicted or kept as the "
      "problem's samples were). Speedups are the other kernel's median over this kernel's "
      "median (above 1: this one is faster).\n\n";
  out += "## Summary\n\n" + render_table(summary_table(model));
  if (!training_pairs(model).empty())
    out +=
        "\n## Forward and backward\n\nEach backward problem beside the forward problem of "
        "the same shape and format: a training step's normalization, normbench's defaults "
        "against torch.compile's, each median from the report that holds its problem.\n\n" +
        render_table(training_table(model));
  for (const SweepFamily& f : sweep_families(model))
    out += "\n## Sweep " + markdown_text(f.family) + ": median time against " +
           markdown_text(f.axis) + "\n\n" + render_table(sweep_table(f));
  out += "\n## Reports\n\n" + render_table(sources_table(model));
  if (!model.warnings.empty()) {
    out += "\n## Warnings\n\n";
    for (const auto& w : model.warnings) out += "- " + markdown_text(w) + "\n";
  }
  for (const auto& p : model.problems) {
    out += "\n## " + markdown_text(p.id) + "\n\n" + markdown_text(problem_summary(p)) + "\n";
    if (!p.description.empty()) out += "\n" + markdown_text(p.description) + "\n";
    out += "\n" + render_table(problem_table(model, p));
  }
  return out;
}

}  // namespace normbench
