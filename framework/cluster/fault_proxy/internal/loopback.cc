#include "framework/cluster/fault_proxy/internal/loopback.h"

#include <stdexcept>

#include <boost/system/error_code.hpp>

namespace aftershock::cluster::internal {

boost::asio::ip::address_v4 ParseLoopbackHost(const std::string& host) {
  if (host == "localhost") return boost::asio::ip::address_v4::loopback();
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address_v4(host, ec);
  if (ec) throw std::invalid_argument("fault proxy: host '" + host + "' is not an IPv4 loopback literal");
  if ((address.to_uint() >> 24) != 127) {
    throw std::invalid_argument("fault proxy: host '" + host + "' is not in 127.0.0.0/8 (loopback only)");
  }
  return address;
}

}  // namespace aftershock::cluster::internal
