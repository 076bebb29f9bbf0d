#include "cli/cli.h"

int main(int argc, char** argv) { return iomimic::cli::Main(argc, argv); }
