// memzip test programs: CHECK(call) returns 1 from main with the failed call
// and CUDA's message on stderr when a runtime call fails.
#pragma once
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t err = (call);                                                    \
        if (err != cudaSuccess) {                                                    \
            fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err));      \
            return 1;                                                                \
        }                                                                            \
    } while (0)
