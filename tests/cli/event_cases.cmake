# Event cases (vmpi.h's event table): which events EnableEvent accepts and
# how the VM posts them.  Included from tests/CMakeLists.txt (which defines
# case(), VMRUN and the scratch directory).

# Every event EnableEvent accepts is posted by some run, and every request
# the VM accepts is answered (event_census.sh, tests/agents/event_census.c).
add_test(NAME cli/events/every_accepted_event_is_posted
         COMMAND sh ${cli}/event_census.sh ${VMRUN} $<TARGET_FILE:test_agent_event_census>
                 ${CMAKE_SOURCE_DIR}/examples
         WORKING_DIRECTORY ${scratch})
