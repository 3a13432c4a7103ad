# aftershock_proto_library(<target> <file.proto>): generates message and gRPC code next to the proto's
# path in the build tree, so "#include "fixtures/targets/pseudonym/pseudonym.grpc.pb.h"" works.
# The path is relative to the calling project's source dir; a user's own project (find_package(aftershock))
# can use it for its own protos the same way.
function(aftershock_proto_library target proto)
  get_filename_component(abs "${proto}" ABSOLUTE)
  file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${abs}")
  get_filename_component(rel_dir "${rel}" DIRECTORY)
  get_filename_component(stem "${rel}" NAME_WE)
  set(out "${PROJECT_BINARY_DIR}/${rel_dir}")
  set(srcs "${out}/${stem}.pb.cc" "${out}/${stem}.grpc.pb.cc")
  set(hdrs "${out}/${stem}.pb.h" "${out}/${stem}.grpc.pb.h")
  add_custom_command(
    OUTPUT ${srcs} ${hdrs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${out}"
    COMMAND ${PROTOC} -I "${PROJECT_SOURCE_DIR}" --cpp_out "${PROJECT_BINARY_DIR}"
            --grpc_out "${PROJECT_BINARY_DIR}" --plugin=protoc-gen-grpc=${GRPC_CPP_PLUGIN} "${rel}"
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    DEPENDS "${abs}"
    COMMENT "protoc ${rel}")
  add_library(${target} STATIC ${srcs})
  target_compile_options(${target} PRIVATE -w)
  # Generated code stays one file per TU in a unity build (CMAKE_UNITY_BUILD): protoc's files are not
  # written to be merged, and a proto library is two files anyway.
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  target_link_libraries(${target} PUBLIC gRPC::grpc++ protobuf::libprotobuf)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
  # What `cmake --install` copies next to the other headers (cmake/aftershock_install.cmake).
  set_target_properties(${target} PROPERTIES AFTERSHOCK_GENERATED_HEADERS "${hdrs}"
                                             AFTERSHOCK_GENERATED_HEADERS_DIR "${rel_dir}")
endfunction()
