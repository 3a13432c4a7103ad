// ClusterError: an error of the local cluster with the gRPC status code its control API answers with.
//
//   throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "no replica named 'x' (a, b or c)");
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_CLUSTER_ERROR_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_CLUSTER_ERROR_H_

#include <grpcpp/grpcpp.h>

#include <stdexcept>
#include <string>

namespace aftershock::cluster {

class ClusterError : public std::runtime_error {
 public:
  ClusterError(grpc::StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  grpc::StatusCode code() const { return code_; }

 private:
  grpc::StatusCode code_;
};

}  // namespace aftershock::cluster

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_CLUSTER_ERROR_H_
