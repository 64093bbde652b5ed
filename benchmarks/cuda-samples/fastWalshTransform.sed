# Our edits to cuda-samples fastWalshTransform.cu (applied to a copy in the
# build cache): log2 of the signal length from argv[1] (default: the sample's
# 23), so the sizes derived from it become expressions.
s/^const int log2Data *= 23;/static int log2Data = 23;/
s/^const int dataN *= 1 << log2Data;/#define dataN (1 << log2Data)/
s/^const int DATA_SIZE *= dataN \* sizeof(float);/#define DATA_SIZE ((int)(dataN * sizeof(float)))/
s/^const double NOPS *= .*/#define NOPS (3.0 * (double)dataN * (double)log2Data \/ 2.0)/
/findCudaDevice(argc, (const char \*\*)argv);/a\    if (argc > 1) log2Data = atoi(argv[1]);
