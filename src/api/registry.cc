#include "iomimic/registry.h"

#include <algorithm>

namespace iomimic {

Registry& Registry::Get() {
  static Registry* registry = new Registry();  // never destroyed: used from static init
  return *registry;
}

void Registry::Add(WorkloadInfo info) { infos_.push_back(std::move(info)); }

const WorkloadInfo* Registry::Find(const std::string& name) const {
  for (const WorkloadInfo& info : infos_) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::vector<const WorkloadInfo*> Registry::All() const {
  std::vector<const WorkloadInfo*> all;
  for (const WorkloadInfo& info : infos_) all.push_back(&info);
  std::sort(all.begin(), all.end(),
            [](const WorkloadInfo* a, const WorkloadInfo* b) { return a->name < b->name; });
  return all;
}

}  // namespace iomimic
