#include "framework/report/markers.h"

namespace aftershock::report {

void WriteMarkedTimeline(std::ostream& out, std::string_view file_name, std::string_view set,
                         std::string_view scenario, std::string_view csv, std::size_t rows) {
  out << "##aftershock BEGIN " << file_name << " set=" << set << " scenario=" << scenario << '\n'
      << csv << "##aftershock END " << file_name << " rows=" << rows << '\n';
  out.flush();
}

}  // namespace aftershock::report
