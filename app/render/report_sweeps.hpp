// The report's sweeps: the points of each swept problem family (app/config/sweep.hpp) put
// back together along their axis, as a line chart (HTML: the median time of each kernel
// against the axis) and a table (Markdown: a row per point, a column per kernel).
#pragma once

#include <string>
#include <vector>

#include "app/render/report_format.hpp"
#include "app/render/report_model.hpp"
#include "app/render/svg_line_chart.hpp"

namespace normbench {

struct SweepFamily {
  std::string family;                        // the swept problem's id
  std::string axis;                          // "rows", "shape[1]"...
  std::vector<const ReportProblem*> points;  // in increasing axis value
  std::vector<double> values;                // the axis value of each point
  std::vector<std::string> kernels;          // every kernel timed at some point, in first order
};

// The families of one numeric axis with two points or more; a family of several axes or of the
// dtype axis has no line to draw, its points stay ordinary problems of the report.
std::vector<SweepFamily> sweep_families(const ReportModel& model);
LineChart sweep_chart(const SweepFamily& family);
ReportTable sweep_table(const SweepFamily& family);

}  // namespace normbench
