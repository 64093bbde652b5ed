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
