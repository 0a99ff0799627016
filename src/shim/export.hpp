#pragma once
// What the library exports: the MPI entry points it defines and the public
// API. Everything else is hidden (-fvisibility=hidden).
#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))
