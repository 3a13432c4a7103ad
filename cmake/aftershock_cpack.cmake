# `cpack -G DEB` (run in the build dir): a Debian package of exactly what `cmake --install` installs,
# under /usr. Everything it needs comes from Debian (Depends), and every file it ships sits under an
# aftershock-named path (/usr/include/aftershock, /usr/lib/aftershock, /usr/lib/cmake/aftershock,
# /usr/bin/aftershock-*), so it never owns a file of Debian's gRPC, GoogleTest or any other package.
#
#   cmake --build build && (cd build && cpack -G DEB)   # -> build/aftershock_0.1.0_amd64.deb
#   dpkg-deb -c build/aftershock_*.deb
include_guard(GLOBAL)
if(NOT PROJECT_IS_TOP_LEVEL)
  return()
endif()

set(CPACK_PACKAGE_NAME aftershock)
set(CPACK_PACKAGE_VENDOR "aftershock")
set(CPACK_PACKAGE_CONTACT "aftershock maintainers <aftershock@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "resilience tests for your own services, as GoogleTest cases")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The programs' shared libraries (libgrpc++, libprotobuf, libyaml-cpp, libpq, ...), by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What a consumer's build needs: the same -dev packages aftershock was built with (tools/setup.sh).
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "cmake (>= 3.25), pkg-config, libgtest-dev (>= 1.12), libgmock-dev, libgrpc++-dev (>= 1.51), libprotobuf-dev (>= 3.21), protobuf-compiler, protobuf-compiler-grpc, libboost-dev (>= 1.74), libyaml-cpp-dev, nlohmann-json3-dev (>= 3.11), libpq-dev")
# The embedded local cluster and the alert chain run these, only when a suite uses them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "postgresql-15, patroni, etcd-server, etcd-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "prometheus, prometheus-alertmanager")
include(CPack)
