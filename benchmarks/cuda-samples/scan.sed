# Our edits to cuda-samples scan main.cpp (applied to a copy in the build cache).
# The element count from argv[1] (default: the sample's 13 x 2^20 / 2).
s|const uint *N *= 13 \* 1048576 / 2;|const uint N = argc > 1 ? (uint)atoi(argv[1]) : 13 * 1048576 / 2;|
# One run per array length instead of 100 identical timing iterations.
s|const int *iCycles = 100;|const int iCycles = 1;|
# Only array lengths that fit the element count (the sample's N holds even
# the largest, 262144): smaller presets skip the longer ones.
s|arrayLength <= MAX_SHORT_ARRAY_SIZE;|arrayLength <= MAX_SHORT_ARRAY_SIZE \&\& arrayLength <= N;|
s|arrayLength <= MAX_LARGE_ARRAY_SIZE;|arrayLength <= MAX_LARGE_ARRAY_SIZE \&\& arrayLength <= N;|
# Our input instead of the sample's random one when argv[2] names a file of
# exactly N uint32 words (the compaction presets: benchmarks/inputs/compaction_flags.py).
/printf("Allocating and initializing CUDA arrays/i\
    if (argc > 2) {\
        FILE *input = fopen(argv[2], "rb");\
        if (!input || fread(h_Input, sizeof(uint), N, input) != N || fgetc(input) != EOF) {\
            fprintf(stderr, "scan: %s does not hold exactly %u uint32 words\\n", argv[2], N);\
            exit(EXIT_FAILURE);\
        }\
        fclose(input);\
        printf("Input: %u elements from %s\\n", N, argv[2]);\
    }
# The output values (every array length's prefix sums, in the order the
# lengths run), one per line, to the file $MEMZIP_VALUES names when it is set:
# what a lossy codec's output error is measured on (benchmarks/README.md,
# "Output values").
1i\
#include <stdio.h>\
#include <stdlib.h>\
static void memzip_values(const unsigned *v, long n) {\
    static int opened = 0;\
    const char *path = getenv("MEMZIP_VALUES");\
    FILE *f = path ? fopen(path, opened++ ? "a" : "w") : NULL;\
    if (!f) return;\
    for (long i = 0; i < n; i++) fprintf(f, "%u\\n", v[i]);\
    fclose(f);\
}
/checkCudaErrors(cudaMemcpy(h_OutputGPU, d_Output, N \* sizeof(uint), cudaMemcpyDeviceToHost));/a\
        memzip_values(h_OutputGPU, N);
