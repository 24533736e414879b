# Compiles tests/consumer/main.cpp with the flags pkg-config gives for the
# installed ragged.pc, and runs it.
find_program(PKG_CONFIG NAMES pkg-config pkgconf REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/share/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --cflags ragged OUTPUT_VARIABLE flags RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags ragged failed")
endif()
execute_process(COMMAND ${PKG_CONFIG} --modversion ragged OUTPUT_VARIABLE version
                OUTPUT_STRIP_TRAILING_WHITESPACE)
message(STATUS "pkg-config: ragged ${version}: ${flags}")
separate_arguments(flag_list UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CXX} ${flag_list} -pthread ${SOURCE} -o ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config's flags failed: ${flags}")
endif()
execute_process(COMMAND ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the consumer built with pkg-config's flags failed")
endif()
