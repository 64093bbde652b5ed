# Our edits to cuda-samples fastWalshTransform.cu (applied to a copy in the
# build cache): log2 of the signal length from argv[1] (default: the sample's
# 23), so the sizes derived from it become expressions.
s/^const int log2Data *= 23;/static int log2Data = 23;/
s/^const int dataN *= 1 << log2Data;/#define dataN (1 << log2Data)/
s/^const int DATA_SIZE *= dataN \* sizeof(float);/#define DATA_SIZE ((int)(dataN * sizeof(float)))/
s/^const double NOPS *= .*/#define NOPS (3.0 * (double)dataN * (double)log2Data \/ 2.0)/
/findCudaDevice(argc, (const char \*\*)argv);/a\    if (argc > 1) log2Data = atoi(argv[1]);
# Our signal instead of the sample's random one when argv[2] names a file of
# exactly 2^log2Data float32 samples (the walsh presets:
# benchmarks/inputs/walsh_signal.py). The 128-tap kernel stays the sample's.
/checkCudaErrors(cudaMemset(d_Kernel, 0, DATA_SIZE));/i\
    if (argc > 2) {\
        FILE *input = fopen(argv[2], "rb");\
        if (!input || fread(h_Data, sizeof(float), dataN, input) != (size_t)dataN || fgetc(input) != EOF) {\
            fprintf(stderr, "fastWalshTransform: %s does not hold exactly %d float32 samples\\n", argv[2], dataN);\
            exit(EXIT_FAILURE);\
        }\
        fclose(input);\
        printf("Input: %d samples from %s\\n", dataN, argv[2]);\
    }
# The output values (the convolution result), one per line, to the file
# $MEMZIP_VALUES names when it is set: what a lossy codec's output error is
# measured on (benchmarks/README.md, "Output values").
1i\
#include <stdio.h>\
#include <stdlib.h>\
static void memzip_values(const float *v, long n) {\
    const char *path = getenv("MEMZIP_VALUES");\
    FILE *f = path ? fopen(path, "w") : NULL;\
    if (!f) return;\
    for (long i = 0; i < n; i++) fprintf(f, "%.9g\\n", v[i]);\
    fclose(f);\
}
/checkCudaErrors(cudaMemcpy(h_ResultGPU, d_Data, DATA_SIZE, cudaMemcpyDeviceToHost));/a\
    memzip_values(h_ResultGPU, dataN);
