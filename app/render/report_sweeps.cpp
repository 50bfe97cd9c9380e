#include "app/render/report_sweeps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace normbench {

namespace {
const ReportKernel* timed(const ReportProblem& p, const std::string& id) {
  const ReportKernel* k = find_report_kernel(p, id);
  return k && k->timing ? k : nullptr;
}
}  // namespace

std::vector<SweepFamily> sweep_families(const ReportModel& model) {
  std::vector<SweepFamily> out;
  std::map<std::string, size_t> index;
  for (const ReportProblem& p : model.problems) {
    if (p.sweep_family.empty() || !p.sweep_point.is_object() || p.sweep_point.size() != 1) continue;
    const auto only = p.sweep_point.begin();
    const std::string axis = only.key();
    const nlohmann::json& value = only.value();
    // Sizes and counts: a point of 0 or below (a hand-edited report) has no place on the
    // chart's axis, which may be logarithmic, and drew "nan" coordinates.
    if (!value.is_number() || !(value.get<double>() > 0.0)) continue;
    auto [it, fresh] = index.emplace(p.sweep_family, out.size());
    if (fresh) out.push_back({p.sweep_family, axis, {}, {}, {}});
    SweepFamily& f = out[it->second];
    if (f.axis != axis) continue;  // not one axis after all
    f.points.push_back(&p);
    f.values.push_back(value.get<double>());
  }
  std::vector<SweepFamily> drawn;
  for (SweepFamily& f : out) {
    if (f.points.size() < 2) continue;
    std::vector<size_t> order(f.points.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return f.values[a] < f.values[b]; });
    SweepFamily sorted{f.family, f.axis, {}, {}, {}};
    for (size_t i : order) {
      sorted.points.push_back(f.points[i]);
      sorted.values.push_back(f.values[i]);
      for (const ReportKernel& k : f.points[i]->kernels)
        if (k.timing &&
            std::find(sorted.kernels.begin(), sorted.kernels.end(), k.id) == sorted.kernels.end())
          sorted.kernels.push_back(k.id);
    }
    drawn.push_back(std::move(sorted));
  }
  return drawn;
}

LineChart sweep_chart(const SweepFamily& f) {
  LineChart chart;
  chart.title = f.family + ": median time against " + f.axis;
  chart.x_label = f.axis;
  chart.y_label = "median time";
  chart.xs = f.values;
  chart.x_format = [](double v) { return fmt::format("{:g}", v); };
  chart.y_format = [](double ms) { return format_time(ms); };
  for (size_t i = 0; i < f.kernels.size(); ++i) {
    LineSeries s{f.kernels[i], series_color(i), {}};
    for (const ReportProblem* p : f.points) {
      const ReportKernel* k = timed(*p, f.kernels[i]);
      s.ys.push_back(k ? std::optional<double>(k->timing->median_ms) : std::nullopt);
    }
    chart.series.push_back(std::move(s));
  }
  return chart;
}

ReportTable sweep_table(const SweepFamily& f) {
  ReportTable t;
  t.headers.push_back(f.axis);
  t.numeric.push_back(true);
  for (const std::string& k : f.kernels) {
    t.headers.push_back(k);
    t.numeric.push_back(true);
  }
  for (size_t i = 0; i < f.points.size(); ++i) {
    std::vector<ReportCell> row;
    row.push_back({fmt::format("{:g}", f.values[i]), ReportCell::Style::plain, f.points[i]->id});
    for (const std::string& id : f.kernels) {
      const ReportKernel* k = timed(*f.points[i], id);
      row.push_back(k ? ReportCell{format_time(k->timing->median_ms), ReportCell::Style::plain, ""}
                      : ReportCell{"\u2014", ReportCell::Style::muted, ""});
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace normbench
