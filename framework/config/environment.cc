#include "framework/config/environment.h"

#include <unistd.h>

#include <cstring>
#include <utility>

namespace aftershock::config {

Environment Environment::FromProcess() {
  std::map<std::string, std::string, std::less<>> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    if (!text.starts_with(kEnvironmentPrefix)) continue;
    std::size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    entries.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return Environment(std::move(entries));
}

Environment Environment::FromMap(std::map<std::string, std::string> entries) {
  return Environment(std::map<std::string, std::string, std::less<>>(entries.begin(), entries.end()));
}

std::optional<std::string> Environment::Get(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Environment::NamesWithPrefix(std::string_view prefix) const {
  std::vector<std::string> names;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end() && it->first.starts_with(prefix);
       ++it) {
    names.push_back(it->first);
  }
  return names;
}

}  // namespace aftershock::config
