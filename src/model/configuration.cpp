#include "model/configuration.hpp"

#include <utility>

namespace fdbench {

namespace {

constexpr std::pair<DescriptorKind, std::string_view> kDescriptorKindNames[] = {
    {DescriptorKind::eventfd, "eventfd"}, {DescriptorKind::file, "file"},
    {DescriptorKind::pipe, "pipe"},       {DescriptorKind::tcp, "tcp"},
    {DescriptorKind::tcp6, "tcp6"},       {DescriptorKind::udp, "udp"},
    {DescriptorKind::unix_stream, "unix"}};

constexpr std::pair<PathMode, std::string_view> kPathModeNames[] = {
    {PathMode::relative, "relative"}, {PathMode::absolute, "absolute"}};

// The value whose spelling is `text`, from one of the tables above.
template <class Enum, std::size_t N>
bool parse_config_name(const std::pair<Enum, std::string_view> (&names)[N], std::string_view text,
                       Enum& out) {
  for (const auto& [value, name] : names) {
    if (name == text) {
      out = value;
      return true;
    }
  }
  return false;
}

template <class Enum, std::size_t N>
std::string_view config_name_of(const std::pair<Enum, std::string_view> (&names)[N], Enum value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "unknown";
}

}  // namespace

std::string_view to_string(DescriptorKind kind) {
  return config_name_of(kDescriptorKindNames, kind);
}

bool parse_descriptor_kind(std::string_view text, DescriptorKind& kind) {
  return parse_config_name(kDescriptorKindNames, text, kind);
}

const std::vector<DescriptorKind>& every_descriptor_kind() {
  static const std::vector<DescriptorKind> kinds = [] {
    std::vector<DescriptorKind> out;
    for (const auto& entry : kDescriptorKindNames) out.push_back(entry.first);
    return out;
  }();
  return kinds;
}

std::string_view to_string(PathMode mode) {
  return config_name_of(kPathModeNames, mode);
}

bool parse_path_mode(std::string_view text, PathMode& mode) {
  return parse_config_name(kPathModeNames, text, mode);
}

std::vector<std::string> path_mode_names() {
  std::vector<std::string> names;
  for (const auto& entry : kPathModeNames) names.emplace_back(entry.second);
  return names;
}

PathMode paths_or_relative(const Configuration& config) {
  return config.paths.value_or(PathMode::relative);
}

}  // namespace fdbench
