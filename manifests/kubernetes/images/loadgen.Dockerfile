# The load generator's image: the HA suite (the coordinator Job runs its scenarios), the loadgen
# worker (the Indexed Job) and the collector, with the scenario sets. Built from the repository root:
#
#   docker build -f manifests/kubernetes/images/loadgen.Dockerfile -t aftershock-loadgen:dev .
#
# NOT BUILT YET: this machine has no container engine (docs/kubernetes.md). Everything comes from
# Debian 12's packages. The Kubernetes chaos driver (not built yet) will need kubectl within one minor
# version of the cluster; Debian 12's kubernetes-client is 1.20, too old, so it will come from
# pkgs.k8s.io when the driver exists.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libgtest-dev libgmock-dev \
      libgrpc++-dev libgrpc-dev protobuf-compiler protobuf-compiler-grpc libprotobuf-dev \
      libboost-dev libyaml-cpp-dev nlohmann-json3-dev libpq-dev libsqlite3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The suites are built only with BUILD_TESTING (the default); only these three targets are.
RUN cmake --preset default \
 && cmake --build build --target ha_suite aftershock-loadgen aftershock-collect

FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libyaml-cpp0.7 libpq5 libsqlite3-0 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/suites/ha/ha_suite /src/build/tools/loadgen/aftershock-loadgen \
     /src/build/tools/report/aftershock-collect /opt/aftershock/bin/
COPY manifests/sets /opt/aftershock/manifests/sets
USER 65532:65532
WORKDIR /tmp
ENTRYPOINT []
