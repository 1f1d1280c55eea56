// Filled in by the applier work (issue 3).
#include "daemon/apply/applier.hpp"
