// The HTML report's section for a suite's own curves (scenario::OutcomeCurve, e.g. the breakpoint's
// goodput against offered rate): per curve a heading, an SVG plot with the curve's own x axis
// (`<svg class="plot" data-plot="curve-<name>">`, the curve as `data-series="<y label>"`, y = x as a
// dashed "offered" series when asked, each x mark a `<line class="chaos-event" data-event="mark">`)
// and a table of its points (`<table class="curve" data-curve="<name>">`, one `<tr class="point">`
// each). Empty for no curves.
#ifndef AFTERSHOCK_FRAMEWORK_REPORT_INTERNAL_CURVE_SECTION_H_
#define AFTERSHOCK_FRAMEWORK_REPORT_INTERNAL_CURVE_SECTION_H_

#include <string>
#include <vector>

#include "framework/scenario/scenario_outcome.h"

namespace aftershock::report::internal {

std::string CurvesSection(const std::vector<scenario::OutcomeCurve>& curves);

}  // namespace aftershock::report::internal

#endif  // AFTERSHOCK_FRAMEWORK_REPORT_INTERNAL_CURVE_SECTION_H_
