# The reference service's image (aftershock-pseudonym). Built from the repository root:
#
#   docker build -f manifests/kubernetes/images/pseudonym.Dockerfile -t aftershock-pseudonym:dev .
#
# NOT BUILT YET: this machine has no container engine (docs/kubernetes.md). Everything comes from
# Debian 12's packages, as tools/setup.sh installs them for a build on the host.
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
# GTest is found even without tests (the top-level CMakeLists.txt requires it); nothing is tested here.
RUN cmake --preset default -DBUILD_TESTING=OFF \
 && cmake --build build --target aftershock-pseudonym

FROM debian:12-slim
# The shared libraries the program links (grpc++ pulls in abseil, c-ares, re2; libpq5 the rest).
# coreutils (sleep, for the Deployment's preStop) is part of the base image.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libpq5 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/build/fixtures/targets/pseudonym/aftershock-pseudonym /usr/local/bin/aftershock-pseudonym
USER 65532:65532
EXPOSE 8081
ENTRYPOINT ["/usr/local/bin/aftershock-pseudonym"]
