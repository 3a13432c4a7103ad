# AFTERSHOCK_FAST_TEST_BUILD: the test programs (every executable named *_test) compile at -O1 and
# reuse one precompiled header of GoogleTest, gMock and the standard headers they all include. The
# `unity` preset turns it on (tools/build.sh: CI and the README's test command); the `default`
# preset leaves it off, so an edit-compile loop still proves each file includes what it uses.
#
# Why (docs/ci.md, "Build time"): test objects are about 40 % of the build's compile time, and most
# of a test object's time is the optimiser working on GoogleTest's and the tests' own templates
# (-O1 cuts a test object's time by about a third) plus the GoogleTest headers parsed again in every
# object (a precompiled header halves a small test's compile). The libraries, programs and suites the
# tests exercise keep -O2: what runs the load and judges the gates is built as users build it.
# A precompiled header of everything (gRPC, Asio, Beast too: 405 MB) made the build slower: every
# object pays for loading it, which costs more than parsing what a small object includes.
#
#   include(cmake/aftershock_pch.cmake)   # anywhere before aftershock_fast_test_build()
#   ...
#   aftershock_fast_test_build()          # after the last target is defined
include_guard(GLOBAL)
option(AFTERSHOCK_FAST_TEST_BUILD "test programs (*_test) at -O1 with one precompiled GoogleTest header" OFF)

# Every executable named *_test under `dir` (recursively).
function(_aftershock_test_programs dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  set(found)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE" AND target MATCHES "_test$")
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _aftershock_test_programs("${subdir}" sub)
    list(APPEND found ${sub})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(aftershock_fast_test_build)
  if(NOT AFTERSHOCK_FAST_TEST_BUILD)
    return()
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "AFTERSHOCK_FAST_TEST_BUILD=ON is made for GCC (compiler here: ${CMAKE_CXX_COMPILER_ID}); "
                        "configure with -DAFTERSHOCK_FAST_TEST_BUILD=OFF")
  endif()
  _aftershock_test_programs("${PROJECT_SOURCE_DIR}" targets)
  add_library(aftershock_test_pch OBJECT "${PROJECT_SOURCE_DIR}/cmake/pch/aftershock_test_pch.cc")
  # A build helper, never installed (cmake/aftershock_install.cmake checks every other library).
  set_property(TARGET aftershock_test_pch PROPERTY AFTERSHOCK_TEST_ONLY ON)
  target_link_libraries(aftershock_test_pch PRIVATE GTest::gmock)
  # GCC uses a precompiled header only under the flags it was made with: the same -O1 here, and
  # -Winvalid-pch everywhere so a mismatch is a warning instead of a silently slower build.
  target_compile_options(aftershock_test_pch PRIVATE -O1 -Winvalid-pch)
  # What the tests include most (counts of #include in the tree), GoogleTest first.
  target_precompile_headers(aftershock_test_pch PRIVATE
    <gtest/gtest.h> <gmock/gmock.h>
    <algorithm> <atomic> <chrono> <cstdint> <filesystem> <fstream> <functional> <map> <memory>
    <mutex> <optional> <set> <sstream> <stdexcept> <string> <string_view> <thread> <utility> <vector>)
  foreach(target IN LISTS targets)
    target_compile_options(${target} PRIVATE -O1 -Winvalid-pch)
    target_precompile_headers(${target} REUSE_FROM aftershock_test_pch)
  endforeach()
  list(LENGTH targets count)
  message(STATUS "aftershock: ${count} test programs at -O1 with the precompiled header of aftershock_test_pch")
endfunction()
