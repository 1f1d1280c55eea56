# SPDX-License-Identifier: Apache-2.0
# roced_exempt_tests_run(TARGET...): the programs this folder's sanitizer-exempt tests run,
# declared beside those tests. scripts/test.sh builds only these in the main build (target
# exempt_test_programs): every other test runs in the sanitizer builds, so compiling its binary
# with gcc as well would double the suite's heaviest cost on a machine whose cache is cold.
function(roced_exempt_tests_run)
  set_property(GLOBAL APPEND PROPERTY ROCED_EXEMPT_TEST_PROGRAMS ${ARGN})
endfunction()

# Called once every target exists.
function(roced_exempt_test_programs_target)
  get_property(programs GLOBAL PROPERTY ROCED_EXEMPT_TEST_PROGRAMS)
  add_custom_target(exempt_test_programs)
  if(programs)
    list(REMOVE_DUPLICATES programs)
    add_dependencies(exempt_test_programs ${programs})
  endif()
endfunction()
