// Tests read a probe's typed result through the report's JSON form: one
// check covers the probe and the field names users see.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "report/json_fields.h"

namespace iomimic::test {

template <typename T>
nlohmann::json J(const T& value) {
  return report::ToJson(value);
}
template <typename T>
nlohmann::json J(const std::optional<T>& value) {
  return value ? report::ToJson(*value) : nlohmann::json(nullptr);
}

}  // namespace iomimic::test
