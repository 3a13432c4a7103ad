# The load generator's image: the HA suite (the coordinator Job runs its scenarios), the loadgen
# worker (the Indexed Job) and the collector, with the scenario sets. Built from the repository root:
#
#   docker build -f manifests/kubernetes/images/loadgen.Dockerfile -t aftershock-loadgen:dev .
#
# NOT BUILT YET: this machine has no container engine (docs/kubernetes.md). Everything comes from
# Debian 12's packages except kubectl: the Kubernetes chaos driver runs it in this image, and it must
# be within one minor version of the cluster; Debian 12's kubernetes-client is 1.20, too old, so it
# comes from the Kubernetes project's own apt repository (pkgs.k8s.io), minor KUBECTL_MINOR
# (--build-arg KUBECTL_MINOR=v1.31 to match another cluster).
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
ARG KUBECTL_MINOR=v1.31
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libyaml-cpp0.7 libpq5 libsqlite3-0 ca-certificates curl gpg \
 && mkdir -p /etc/apt/keyrings \
 && curl -fsSL "https://pkgs.k8s.io/core:/stable:/${KUBECTL_MINOR}/deb/Release.key" \
      | gpg --dearmor -o /etc/apt/keyrings/kubernetes-apt-keyring.gpg \
 && echo "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/${KUBECTL_MINOR}/deb/ /" \
      > /etc/apt/sources.list.d/kubernetes.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends kubectl \
 && apt-get purge -y curl gpg && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/suites/ha/ha_suite /src/build/tools/loadgen/aftershock-loadgen \
     /src/build/tools/report/aftershock-collect /opt/aftershock/bin/
COPY manifests/sets /opt/aftershock/manifests/sets
USER 65532:65532
WORKDIR /tmp
ENTRYPOINT []
