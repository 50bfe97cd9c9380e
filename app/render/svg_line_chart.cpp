#include "app/render/svg_line_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/render/log_axis.hpp"
#include "app/render/xml_text.hpp"

namespace normbench {

namespace {

constexpr double kLeft = 78.0, kRight = 24.0, kTop = 40.0, kBottom = 48.0;
constexpr double kLegendRow = 16.0;

// One axis: linear, or log where the values span a factor of 8 or more.
class Scale {
 public:
  Scale(std::vector<double> values, double from, double to) : from_(from), to_(to) {
    values.erase(std::remove_if(values.begin(), values.end(),
                                [](double v) { return !std::isfinite(v) || v <= 0.0; }),
                 values.end());
    if (values.empty()) values = {1.0};
    lo_ = *std::min_element(values.begin(), values.end());
    hi_ = *std::max_element(values.begin(), values.end());
    log_ = hi_ / lo_ >= 8.0;
    log_axis_ = LogAxis(lo_, hi_);
    if (!log_) {
      const double pad = hi_ > lo_ ? 0.05 * (hi_ - lo_) : 0.5 * hi_;
      lo_ = std::max(0.0, lo_ - pad);
      // Near DBL_MAX the padding would overflow; at the smallest subnormal it rounds to 0.
      hi_ = std::min(hi_ + pad, std::numeric_limits<double>::max());
      if (!(hi_ > lo_)) {
        lo_ = 0.0;
        hi_ *= 2.0;
      }
    }
  }
  double at(double v) const {
    const double t = log_ ? log_axis_.fraction(v) : (v - lo_) / (hi_ - lo_);
    return from_ + std::clamp(t, 0.0, 1.0) * (to_ - from_);
  }
  std::vector<double> ticks() const {
    if (log_) return log_axis_.ticks(3);
    std::vector<double> out;
    for (int i = 0; i <= 4; ++i) out.push_back(lo_ + (hi_ - lo_) * (i / 4.0));
    return out;
  }
  bool log() const { return log_; }

 private:
  double from_, to_, lo_ = 1.0, hi_ = 10.0;
  bool log_ = false;
  LogAxis log_axis_{1.0, 10.0};
};

std::string fmt_or(const std::function<std::string(double)>& f, double v) {
  return f ? f(v) : fmt::format("{:g}", v);
}

}  // namespace

const std::string& series_color(size_t index) {
  static const std::vector<std::string> kColors = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                   "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                                   "#9c755f", "#bab0ac"};
  return kColors[index % kColors.size()];
}

std::string render_line_chart(const LineChart& chart, int width, int height) {
  std::vector<const LineSeries*> shown;
  std::vector<double> all_y;
  for (const LineSeries& s : chart.series) {
    bool any = false;
    for (const auto& y : s.ys)
      if (y && std::isfinite(*y) && *y > 0.0) {
        all_y.push_back(*y);
        any = true;
      }
    if (any) shown.push_back(&s);
  }
  const double legend = kLegendRow * static_cast<double>((shown.size() + 2) / 3);
  const double plot_bottom = height - kBottom;
  const double plot_top = kTop + legend;
  const Scale x(chart.xs, kLeft, width - kRight);
  const Scale y(all_y, plot_bottom, plot_top);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n",
      width, height, width, height, xml_escape(chart.title));
  out += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                     kLeft, xml_escape(chart.title));
  for (size_t i = 0; i < shown.size(); ++i) {
    const double lx = kLeft + static_cast<double>(i % 3) * 250.0;
    const double ly = kTop - 8.0 + kLegendRow * static_cast<double>(i / 3);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\" "
        "fill=\"#333\">{}</text>\n",
        lx, ly - 4.0, shown[i]->color, lx + 16.0, ly, xml_escape(shown[i]->name));
  }
  for (double t : y.ticks())
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eaeef2\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" fill=\"#555\" text-anchor=\"end\">{5}</text>\n",
        kLeft, width - kRight, y.at(t), kLeft - 6.0, y.at(t) + 4.0,
        xml_escape(fmt_or(chart.y_format, t)));
  for (double t : chart.xs)
    out +=
        fmt::format("<text x=\"{:.1f}\" y=\"{}\" fill=\"#555\" text-anchor=\"middle\">{}</text>\n",
                    x.at(t), plot_bottom + 16.0, xml_escape(fmt_or(chart.x_format, t)));
  out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#333\" text-anchor=\"middle\">{}{}</text>\n",
                     (kLeft + width - kRight) / 2.0, height - 8.0, xml_escape(chart.x_label),
                     x.log() ? " (log)" : "");
  out += fmt::format(
      "<text x=\"14\" y=\"{0:.1f}\" fill=\"#333\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {0:.1f})\">{1}{2}</text>\n",
      (plot_top + plot_bottom) / 2.0, xml_escape(chart.y_label), y.log() ? " (log)" : "");
  for (const LineSeries* s : shown) {
    std::string points, markers;
    for (size_t i = 0; i < chart.xs.size() && i < s->ys.size(); ++i) {
      const auto& v = s->ys[i];
      if (!v || !std::isfinite(*v) || *v <= 0.0) continue;
      points +=
          fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x.at(chart.xs[i]), y.at(*v));
      markers += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\">"
          "<title>{}: {}</title></circle>\n",
          x.at(chart.xs[i]), y.at(*v), s->color, xml_escape(s->name),
          xml_escape(fmt_or(chart.y_format, *v)));
    }
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
                       points, s->color) +
           markers;
  }
  return out + "</svg>\n";
}

}  // namespace normbench
