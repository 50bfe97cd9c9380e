#include "app/render/svg_chart.hpp"

#include "app/render/log_axis.hpp"
#include "app/render/xml_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace normbench {

namespace {

constexpr double kBarHeight = 14.0;
constexpr double kBarGap = 2.0;
constexpr double kRowPadding = 10.0;
constexpr double kCharWidth = 7.0;  // of the 12px sans-serif labels, roughly
constexpr double kTop = 52.0;       // title and legend
constexpr double kBottom = 32.0;    // tick labels
constexpr double kRightMargin = 96.0;

// The decades that cover the chart's values and its reference.
LogAxis log_axis_of(const BarChart& chart) {
  double lo = chart.reference.value_or(1.0), hi = lo;
  for (const auto& row : chart.rows)
    for (const auto& v : row.values)
      if (v && *v > 0.0 && std::isfinite(*v)) {
        lo = std::min(lo, *v);
        hi = std::max(hi, *v);
      }
  return LogAxis(lo, hi);
}

// Maps a value to an x coordinate; empty for values the axis cannot show (log of <= 0).
class Axis {
 public:
  Axis(const BarChart& chart, double left, double right)
      : left_(left), right_(right), log_axis_(log_axis_of(chart)) {
    log_ = chart.scale == BarChart::Scale::log;
    if (!log_) {
      lo_ = chart.axis_min;
      hi_ = chart.axis_max > chart.axis_min ? chart.axis_max : chart.axis_min + 1.0;
      return;
    }
    lo_ = log_axis_.lo();
    hi_ = log_axis_.hi();
  }

  bool shows(double v) const { return std::isfinite(v) && (!log_ || v > 0.0); }
  double x(double v) const {
    const double t = log_ ? log_axis_.fraction(v) : (v - lo_) / (hi_ - lo_);
    return left_ + std::clamp(t, 0.0, 1.0) * (right_ - left_);
  }
  double lo() const { return lo_; }
  double hi() const { return hi_; }
  bool beyond(double v) const { return v > hi_; }

  std::vector<double> ticks() const {
    if (log_) return log_axis_.ticks(2);  // two decades or fewer: 1, 2, 5 per decade
    std::vector<double> out;
    for (int i = 0; i <= 5; ++i) out.push_back(lo_ + (hi_ - lo_) * (i / 5.0));
    return out;
  }

 private:
  bool log_ = false;
  double lo_ = 0.0, hi_ = 1.0, left_, right_;
  LogAxis log_axis_;
};

std::string num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string text_at(double x, double y, const std::string& anchor, const std::string& content,
                    const std::string& extra = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y),
                     anchor, extra, xml_escape(content));
}

std::string legend(const BarChart& chart, double x, double y) {
  std::string out;
  for (const auto& s : chart.series) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", num(x),
                       num(y - 10), xml_escape(s.color));
    out += text_at(x + 16, y, "start", s.name);
    x += 16 + kCharWidth * static_cast<double>(s.name.size()) + 18;
  }
  if (!chart.flag_text.empty() && chart.scale == BarChart::Scale::linear) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", num(x),
                       num(y - 10), xml_escape(chart.flag_color));
    out += text_at(x + 16, y, "start", chart.flag_text + " (beyond the axis)");
  }
  return out;
}

}  // namespace

namespace {
// The chart without the series that have no value at all.
BarChart without_empty_series(const BarChart& chart) {
  BarChart out = chart;
  out.series.clear();
  for (auto& row : out.rows) row.values.clear();
  for (size_t s = 0; s < chart.series.size(); ++s) {
    bool any = false;
    for (const auto& row : chart.rows) any = any || (s < row.values.size() && row.values[s]);
    if (!any) continue;
    out.series.push_back(chart.series[s]);
    for (size_t r = 0; r < chart.rows.size(); ++r)
      out.rows[r].values.push_back(s < chart.rows[r].values.size() ? chart.rows[r].values[s]
                                                                   : std::nullopt);
  }
  return out;
}

}  // namespace

std::string render_bar_chart(const BarChart& input, int width) {
  const BarChart chart = without_empty_series(input);
  const auto format = chart.format ? chart.format : [](double v) { return fmt::format("{:g}", v); };
  const auto tick_format = chart.tick_format ? chart.tick_format : format;
  size_t longest = 4;
  for (const auto& row : chart.rows) longest = std::max(longest, row.label.size());
  const double w = width;
  const double left = std::min(w * 0.45, kCharWidth * static_cast<double>(longest) + 16.0);
  const double right = w - kRightMargin;
  const size_t n_series = std::max<size_t>(1, chart.series.size());
  const double row_height = static_cast<double>(n_series) * (kBarHeight + kBarGap) + kRowPadding;
  const double plot_bottom =
      kTop + row_height * static_cast<double>(std::max<size_t>(1, chart.rows.size()));
  const double height = plot_bottom + kBottom;
  const Axis axis(chart, left, right);

  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"{2}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      width, num(height), xml_escape(chart.title));
  out += fmt::format("<title>{}</title>\n", xml_escape(chart.title));
  out += text_at(0, 16, "start", chart.title, " font-size=\"14\" font-weight=\"bold\"");
  out += legend(chart, 0, 38);

  // Row stripes and labels.
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const double top = kTop + row_height * static_cast<double>(r);
    if (r % 2 == 1)
      out += fmt::format("<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f3f4f6\"/>\n",
                         num(top), width, num(row_height));
    out += text_at(left - 8, top + row_height / 2, "end", chart.rows[r].label, " dy=\"0.35em\"");
  }
  if (chart.rows.empty())
    out += text_at(left, kTop + row_height / 2, "start", "no data", " dy=\"0.35em\"");

  // Grid and ticks.
  for (double t : axis.ticks()) {
    const double x = axis.x(t);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#d0d4da\"/>\n",
                       num(x), num(kTop), num(plot_bottom));
    out += text_at(x, plot_bottom + 16, "middle", tick_format(t), " fill=\"#444\"");
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>\n",
                     num(left), num(kTop), num(plot_bottom));

  // Bars: from the reference (log) or the axis start (linear) to the value.
  const bool log = chart.scale == BarChart::Scale::log;
  const double origin = log ? axis.x(chart.reference.value_or(1.0)) : axis.x(axis.lo());
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const BarRow& row = chart.rows[r];
    for (size_t s = 0; s < row.values.size() && s < n_series; ++s) {
      if (!row.values[s] || !axis.shows(*row.values[s])) continue;
      const double v = *row.values[s];
      const double y = kTop + row_height * static_cast<double>(r) + kRowPadding / 2 +
                       static_cast<double>(s) * (kBarHeight + kBarGap);
      const double end = axis.x(v);
      const bool flagged = !log && axis.beyond(v);
      const std::string color = flagged                   ? chart.flag_color
                                : s < chart.series.size() ? chart.series[s].color
                                                          : "#4e79a7";
      const std::string series = s < chart.series.size() ? chart.series[s].name : "";
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}</title></rect>\n",
          num(std::min(origin, end)), num(y), num(std::max(1.0, std::fabs(end - origin))),
          num(kBarHeight), xml_escape(color),
          xml_escape(row.label + ", " + series + ": " + format(v)));
      const std::string label =
          format(v) + (flagged && !chart.flag_text.empty() ? " " + chart.flag_text : "");
      const double baseline = y + kBarHeight / 2;
      if (flagged)  // clipped at the axis end: the label goes inside the bar
        out += text_at(end - 4, baseline, "end", label,
                       " dy=\"0.35em\" fill=\"#fff\" font-weight=\"bold\"");
      else if (end >= origin)
        out += text_at(end + 4, baseline, "start", label, " dy=\"0.35em\"");
      else if (end - left > kCharWidth * static_cast<double>(label.size()) + 8)
        out += text_at(end - 4, baseline, "end", label, " dy=\"0.35em\"");
      else
        out += text_at(origin + 4, baseline, "start", label, " dy=\"0.35em\"");
    }
  }
  if (chart.reference)
    out += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\" stroke-dasharray=\"4 "
        "3\"/>\n",
        num(axis.x(*chart.reference)), num(kTop - 4), num(plot_bottom));
  return out + "</svg>\n";
}

}  // namespace normbench
