// Horizontal bar charts as inline SVG (no scripts, no external fonts or files), for the HTML
// report: one row per label, one bar per series in each row, each bar labelled with its value.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace normbench {

struct BarSeries {
  std::string name;
  std::string color;  // a CSS color, e.g. "#4e79a7"
};

struct BarRow {
  std::string label;
  std::vector<std::optional<double>> values;  // one per series; empty: no bar
};

struct BarChart {
  enum class Scale { linear, log };
  std::string title;
  std::vector<BarSeries> series;
  std::vector<BarRow> rows;
  Scale scale = Scale::linear;
  // Linear: the axis runs from axis_min to axis_max; a value beyond axis_max is drawn clipped
  // at the end, in flag_color, and labelled with flag_text. Log: the axis covers the data and
  // the reference, in whole decades.
  double axis_min = 0.0;
  double axis_max = 100.0;
  std::optional<double> reference;  // a dashed line (1x, 100%); log bars grow from it
  std::string flag_color = "#d62728";
  std::string flag_text;
  std::function<std::string(double)> format;       // value labels
  std::function<std::string(double)> tick_format;  // axis labels; empty: as values
};

// An <svg> element, `width` pixels wide, its height from the number of rows and series. A
// series without any value in any row is left out, legend included.
std::string render_bar_chart(const BarChart& chart, int width = 820);

}  // namespace normbench
