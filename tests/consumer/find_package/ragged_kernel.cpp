// The kernel's code, compiled once for the program (RAGGED_EXTERN_KERNEL).
#include <ragged/kernel/instantiate.hpp>
