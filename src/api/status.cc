#include "iomimic/status.h"

#include <fmt/format.h>

namespace iomimic {

SysError::SysError(std::string op, std::string path, int err)
    : std::system_error(err, std::generic_category(),
                        path.empty() ? op : fmt::format("{} {}", op, path)),
      op_(std::move(op)),
      path_(std::move(path)) {}

}  // namespace iomimic
