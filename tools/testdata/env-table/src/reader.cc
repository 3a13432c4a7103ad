// A fixture for tools/check-env-table: one documented read, one undocumented read.
#include <cstdlib>
const char* Documented() { return std::getenv("AFTERSHOCK_DOCUMENTED"); }
const char* Undocumented() { return std::getenv("AFTERSHOCK_UNDOCUMENTED"); }
// getenv("AFTERSHOCK_IN_A_COMMENT") is no read.
