// Reading the system settings the tests change and check (sysfs, procfs),
// the way a user would with cat.
#pragma once

#include <string>

namespace iomimic::test {

// The file's text without surrounding whitespace; "" when it cannot be read.
std::string ReadTrimmed(const std::string& path);

// The bracketed word of "none [mq-deadline] kyber bfq"; the text itself
// when nothing is bracketed.
std::string Active(const std::string& selector_text);

}  // namespace iomimic::test
