// Filled in by the planner work (issue 3).
#include "daemon/plan/plan.hpp"
