#include "report/reporters.h"
#include "util/atomic_file.h"

namespace iomimic::report {

// Reports are for everyone to read (0644 less the umask) once in place;
// util/atomic_file.h says how nothing can be planted on the way.
void WriteFileAtomically(const std::string& path, const std::string& content) {
  iomimic::WriteFileAtomically(path, content, 0644);
}

}  // namespace iomimic::report
