// SPDX-License-Identifier: Apache-2.0
// Text in and out: printing (print.hpp) and parsing (parse.hpp) together.
#pragma once

#include "parse.hpp"
#include "print.hpp"
