# Prints MESSAGE and fails: the one test of a build whose tests could not be made.
message(FATAL_ERROR "${MESSAGE}")
