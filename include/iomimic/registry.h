// Modules register themselves with one line in their own .cc:
//
//   IOMIMIC_REGISTER_WORKLOAD(MmapMsync, "mmap_msync", "one-line summary");
//
// The registry is a function-local static, so registration order across
// translation units does not matter. The core looks modules up by name and
// never includes one. Thread-safe after static initialisation (read-only).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "iomimic/workload.h"

namespace iomimic {

struct WorkloadInfo {
  std::string name;
  std::string summary;
  std::function<std::unique_ptr<Workload>()> make;
};

class Registry {
 public:
  static Registry& Get();
  void Add(WorkloadInfo info);
  const WorkloadInfo* Find(const std::string& name) const;
  // Sorted by name.
  std::vector<const WorkloadInfo*> All() const;

 private:
  std::vector<WorkloadInfo> infos_;
};

struct Registrar {
  Registrar(std::string name, std::string summary,
            std::function<std::unique_ptr<Workload>()> make) {
    Registry::Get().Add({std::move(name), std::move(summary), std::move(make)});
  }
};

}  // namespace iomimic

#define IOMIMIC_CONCAT_INNER_(a, b) a##b
#define IOMIMIC_CONCAT_(a, b) IOMIMIC_CONCAT_INNER_(a, b)
#define IOMIMIC_REGISTER_WORKLOAD(Class, name, summary)                          \
  static ::iomimic::Registrar IOMIMIC_CONCAT_(iomimic_registrar_, __COUNTER__)(  \
      name, summary, [] { return std::unique_ptr<::iomimic::Workload>(new Class()); })
