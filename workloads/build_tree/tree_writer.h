// WriteTree: lays out a generated source tree (TreeShape) under `root`, in
// prepare (untimed). Headers are filler text; a source is its include lines
// followed by filler up to its size. Filler lines never start with '#'.
// Returns early (false) when stop() says so. Throws SysError.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tree_shape.h"

namespace iomimic::build_tree {

struct TreeBytes {
  uint64_t files = 0;
  uint64_t bytes = 0;
};

bool WriteTree(const TreeShape& shape, const std::string& root, const std::function<bool()>& stop,
               TreeBytes* written);

}  // namespace iomimic::build_tree
