# The README's FetchContent snippet as written: GIT_REPOSITORY and GIT_TAG
# v0.1.0, pointing at a local clone of this repository in which the tag
# exists (the clone has HEAD's committed files; tagged there if this
# repository has no such tag yet).
find_package(Git)
if(NOT GIT_FOUND OR NOT EXISTS ${SOURCE}/.git)
  message(STATUS "SKIPPED: not a git checkout (or no git): the FetchContent-from-git test needs one")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${GIT_EXECUTABLE} clone --quiet ${SOURCE} ${WORK}/ragged RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "git clone failed")
endif()
execute_process(COMMAND ${GIT_EXECUTABLE} -C ${WORK}/ragged rev-parse -q --verify refs/tags/v0.1.0
                RESULT_VARIABLE no_tag OUTPUT_QUIET)
if(NOT no_tag EQUAL 0)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${WORK}/ragged -c user.name=ci -c user.email=ci@localhost
                          tag v0.1.0 COMMAND_ERROR_IS_FATAL ANY)
endif()
execute_process(COMMAND ${CTEST} --build-and-test ${CONSUMER} ${WORK}/build --build-generator ${GENERATOR}
                        --build-options -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release
                        -DRAGGED_GIT_REPOSITORY=file://${WORK}/ragged
                        --test-command consumer
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the FetchContent consumer (GIT_REPOSITORY, GIT_TAG v0.1.0) failed")
endif()
