#include "framework/ledger/promise.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace aftershock::ledger {

LatestPromises LatestPerKey(std::vector<Promise> promises) {
  // Recording order breaks ties of equal acknowledgement times: stable.
  std::stable_sort(promises.begin(), promises.end(),
                   [](const Promise& a, const Promise& b) { return a.unix_ms < b.unix_ms; });
  std::unordered_map<std::string_view, std::size_t> last;  // key -> index of its last promise
  last.reserve(promises.size());
  for (std::size_t i = 0; i < promises.size(); ++i) last[promises[i].key] = i;
  LatestPromises out;
  out.superseded = promises.size() - last.size();
  out.promises.reserve(last.size());
  for (std::size_t i = 0; i < promises.size(); ++i) {
    if (last.at(promises[i].key) == i) out.promises.push_back(std::move(promises[i]));
  }
  std::stable_sort(out.promises.begin(), out.promises.end(), [](const Promise& a, const Promise& b) {
    return a.unix_ms != b.unix_ms ? a.unix_ms < b.unix_ms : a.key < b.key;
  });
  return out;
}

bool ValidAttributeName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
  });
}

PromiseAttributes::PromiseAttributes(std::initializer_list<Item> items) {
  for (const Item& item : items) {
    if (Get(item.first)) throw std::invalid_argument("promise attribute '" + item.first + "' is given twice");
    Set(item.first, item.second);
  }
}

PromiseAttributes::PromiseAttributes(const PromiseAttributes& other)
    : items_(other.items_ ? std::make_unique<std::vector<Item>>(*other.items_) : nullptr) {}

PromiseAttributes& PromiseAttributes::operator=(const PromiseAttributes& other) {
  if (this != &other) items_ = other.items_ ? std::make_unique<std::vector<Item>>(*other.items_) : nullptr;
  return *this;
}

void PromiseAttributes::Set(std::string name, std::string value) {
  if (!ValidAttributeName(name)) {
    throw std::invalid_argument("promise attribute name '" + name + "' is not [a-z0-9._-]+");
  }
  if (!items_) items_ = std::make_unique<std::vector<Item>>();
  auto it = std::lower_bound(items_->begin(), items_->end(), name,
                             [](const Item& item, const std::string& n) { return item.first < n; });
  if (it != items_->end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_->emplace(it, std::move(name), std::move(value));
  }
}

std::optional<std::string_view> PromiseAttributes::Get(std::string_view name) const {
  for (const Item& item : *this) {
    if (item.first == name) return std::string_view(item.second);
  }
  return std::nullopt;
}

bool operator==(const PromiseAttributes& a, const PromiseAttributes& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace aftershock::ledger
