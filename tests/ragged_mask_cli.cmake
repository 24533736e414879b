# Runs the ragged_mask tool on a handful of inputs: stdout, the stderr prefix and the exit code.
# Usage: cmake -DTOOL=path/to/ragged_mask -P ragged_mask_cli.cmake
set(failures 0)
if(EMULATOR)
  set(TOOL ${EMULATOR} ${TOOL})  # a cross build's tool runs under its emulator
endif()

function(expect_ok expected)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "${expected}\n" OR NOT err STREQUAL "")
    message(SEND_ERROR "ragged_mask ${ARGN}\n  exit ${rc}\n  stdout: ${out}\n  stderr: ${err}\n  expected: ${expected}")
  endif()
endfunction()

function(expect_error words)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "${words}" at)
  if(rc EQUAL 0 OR NOT out STREQUAL "" OR NOT err MATCHES "^error: [^\n]*\n$" OR at EQUAL -1)
    message(SEND_ERROR "ragged_mask ${ARGN}\n  exit ${rc}\n  stdout: ${out}\n  stderr: ${err}\n  expected an error with: ${words}")
  endif()
endfunction()

# The TensorFlow documentation's examples.
expect_ok("[[1, 3], [], [7]]" "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]" "[[True, False, True], [False, False, False], [True, False, False]]")
expect_ok("[[3], [], [5, 6]]" "[[1, 2, 3], [4], [5, 6]]" "[[False, False, True], [False], [True, True]]")
expect_ok("[[1, 2, 3], [5, 6]]" "[[1, 2, 3], [4], [5, 6]]" "[True, False, True]")
expect_ok("[0, 2]" --axis 0 "[0, 1, 2, 3]" "[True, False, True, False]")
expect_ok("[[1, 2], [5, 6]]" --axis 0 "[[1, 2], [3, 4], [5, 6]]" "[True, False, True]")
# Types are inferred; --show-type; ragged ranks by flag.
expect_ok("Tensor shape=(2, 1)\n[[2], [4]]" --show-type --axis -1 "[[1, 2], [3, 4]]" "[false, true]")
expect_ok("RaggedTensor ragged_rank=1 shape=(2, None)\n[[1.5], [4.0]]" --show-type "[[1.5, 2], [3, 4]]" "[[true, false], [false, true]]")
expect_ok("[[\"a\"], []]" "[[\"a\", \"b\"], [\"c\"]]" "[[True, False], [False]]")
expect_ok("RaggedTensor ragged_rank=1 shape=(1, None)\n[[1, 2]]" --show-type --data-ragged-rank 1 "[[1, 2], [3, 4]]" "[True, False]")
expect_ok("[[False]]" --mask-ragged-rank 1 "[[True, False]]" "[[False, True]]")
# Literals from a file (@path) and from standard input (-).
file(WRITE ${WORK}/data.txt "[[1, 2, 3],\n [4], [5, 6]]\n")
file(WRITE ${WORK}/mask.txt "[True, False, True]")
expect_ok("[[1, 2, 3], [5, 6]]" "@${WORK}/data.txt" "@${WORK}/mask.txt")
execute_process(COMMAND ${TOOL} - "@${WORK}/mask.txt" INPUT_FILE ${WORK}/data.txt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "[[1, 2, 3], [5, 6]]\n")
  message(SEND_ERROR "ragged_mask - @mask.txt < data.txt: exit ${rc}, stdout ${out}, stderr ${err}")
endif()
expect_error("cannot read @${WORK}/missing.txt" "@${WORK}/missing.txt" "[True]")
expect_error("only one of DATA and MASK can be read from standard input" - -)
# Each error class.
expect_error("mask shape (1, 3) is not a prefix of data shape (1, 2)" "[[1, 2]]" "[[True, False, True]]")
expect_error("identical row splits" "[[1, 2, 3], [4]]" "[[True, False], [True, False]]")
expect_error("mask cannot be scalar" "[1, 2]" "True")
expect_error("parse error at offset 6: expected ',' or ']'" "[1, 2 x]" "[True]")
expect_error("ragged_rank = -1 must be in [0, 2)" --data-ragged-rank -1 "[[1, 2], [3]]" "[True, False]")
expect_error("ragged_rank = -1 must be in [0, 2)" --mask-ragged-rank -1 "[[1, 2], [3]]" "[[True, False], [True]]")
expect_error("only True/False" "[1, 2]" "[1, 0]")
expect_error("--axis needs a uniform" --axis 0 "[[1], [2, 3]]" "[True, False]")
expect_error("axis 5 is out of range" --axis 5 "[1, 2]" "[True, False]")
expect_error("DATA and MASK are required" "[1, 2]")
expect_error("unknown option --frobnicate" --frobnicate "[1]" "[True]")
expect_error("--axis needs an integer" --axis x "[1]" "[True]")
# --help
execute_process(COMMAND ${TOOL} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: ragged_mask")
  message(SEND_ERROR "--help: exit ${rc}, ${out}")
endif()
