# A build where Catch2 cannot be found: configure must succeed and say so in
# one line, the quickstart must build and run, and ctest must fail with that line.
# Usage: cmake -DSOURCE=... -DBINARY=... -DCOMPILER=... -P without_catch2.cmake
file(REMOVE_RECURSE ${BINARY})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -DCMAKE_CXX_COMPILER=${COMPILER}
                        -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON -DRAGGED_BUILD_BENCH=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure without Catch2 failed:\n${out}\n${err}")
endif()
string(FIND "${out}" "ragged: tests are off: Catch2 was not found; install it (Debian/Ubuntu: apt-get install catch2" at)
if(at EQUAL -1)
  message(FATAL_ERROR "configure did not say how to get Catch2:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} --target quickstart RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the quickstart did not build without Catch2:\n${out}")
endif()
execute_process(COMMAND ${BINARY}/examples/quickstart RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the quickstart failed")
endif()
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${BINARY} --output-on-failure
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}${err}" "tests are off: Catch2 was not found" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "ctest without Catch2 should fail with the line that says how to get it:\n${out}\n${err}")
endif()
