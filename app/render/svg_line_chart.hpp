// Line charts as inline SVG (no scripts, no external files), for the HTML report's sweeps: one
// line per series over a numeric x axis, log scales where the data span a decade or more.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

struct LineSeries {
  std::string name;
  std::string color;                      // a CSS color
  std::vector<std::optional<double>> ys;  // one per x; empty: no point there
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<double> xs;  // increasing, > 0 for a log axis
  std::vector<LineSeries> series;
  std::function<std::string(double)> x_format;
  std::function<std::string(double)> y_format;
};

// An <svg> element `width` pixels wide. Series without any point are left out.
std::string render_line_chart(const LineChart& chart, int width = 820, int height = 360);

// The colors series take in order.
const std::string& series_color(size_t index);

}  // namespace normbench
