// Every YAML document in a text, as yaml-cpp nodes, with one defect of Debian's yaml-cpp 0.7 closed.
//
// YAML::LoadAll never returns on some tiny malformed texts (",", "&a,", "!t,": a flow indicator
// where a block node should start): the parser reports an empty document without consuming the
// token, and LoadAll asks for the next document forever while its memory grows (yaml-cpp issue 1040,
// fixed upstream in pull request 1319, after 0.7). A manifest with such a typo would hang a suite
// instead of failing with a clear error. LoadAllDocuments first walks the events once and throws a
// YAML::ParserException at the stuck token when a document starts where the previous one started.
//
//   std::vector<YAML::Node> docs = LoadAllDocuments(text);  // throws YAML::Exception
#ifndef AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_DOCUMENTS_H_
#define AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_DOCUMENTS_H_

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

namespace aftershock::config::internal {

// YAML::LoadAll(text), except that a text on which the parser stops advancing throws
// YAML::ParserException (mark: the token it is stuck on) instead of looping.
std::vector<YAML::Node> LoadAllDocuments(std::string_view text);

}  // namespace aftershock::config::internal

#endif  // AFTERSHOCK_FRAMEWORK_CONFIG_INTERNAL_YAML_DOCUMENTS_H_
