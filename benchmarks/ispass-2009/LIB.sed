# Our edits to ISPASS-2009 LIB's libor.cu (applied to a copy in the build cache).
# cutil (CUDA SDK 1.x-2.x) is not available: its checks become plain CUDA error
# checks and its timers no-ops (the simulator's cycles replace the timing).
s|^#include <cutil.h>|#include <stdlib.h>\
#define CUDA_SAFE_CALL_NO_SYNC(call) do { cudaError_t memzip_err = (call); if (memzip_err != cudaSuccess) { fprintf(stderr, "libor: CUDA error %s at line %d\\n", cudaGetErrorString(memzip_err), __LINE__); exit(EXIT_FAILURE); } } while (0)\
#define CUDA_SAFE_CALL(call) CUDA_SAFE_CALL_NO_SYNC(call)\
#define CUT_CHECK_ERROR(message) CUDA_SAFE_CALL_NO_SYNC(cudaGetLastError())\
#define CUT_SAFE_CALL(call) (call)\
static int cutCreateTimer(unsigned int *timer) { *timer = 0; return 0; }\
static int cutDeleteTimer(unsigned int) { return 0; }\
static int cutResetTimer(unsigned int) { return 0; }\
static int cutStartTimer(unsigned int) { return 0; }\
static int cutStopTimer(unsigned int) { return 0; }\
static double cutGetTimerValue(unsigned int) { return 0.0; }|
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# The number of Monte Carlo paths (fixed at 4096) comes from argv[1], so the
# presets can choose it: a host variable, copied to a __constant__ for the
# kernels' path loops.
s|^#define NPATH 4096|static int h_npath = 4096;\
__constant__ int d_npath;\
#ifdef __CUDA_ARCH__\
#define NPATH d_npath\
#else\
#define NPATH h_npath\
#endif|
/CUT_SAFE_CALL( cutCreateTimer(&hTimer) );/a\
  if (argc > 1) h_npath = atoi(argv[1]);\
  if (h_npath < 1) { fprintf(stderr, "libor: the number of paths (argv[1]) must be a positive integer, got '%s'\\n", argv[1]); exit(EXIT_FAILURE); }\
  CUDA_SAFE_CALL( cudaMemcpyToSymbol(d_npath, &h_npath, sizeof(h_npath)) );\
  printf("paths = %d\\n", h_npath);
# Every path starts from the same rates, so every path's value must equal the
# host reference: print the smallest and largest of each kernel's results (the
# averages alone would hide a few wrong paths).
/printf("v  = %15.8f\\n", v);/a\
  { float lo = h_v[0], hi = h_v[0]; for (i = 1; i < NPATH; i++) { lo = fminf(lo, h_v[i]); hi = fmaxf(hi, h_v[i]); } printf("memzip-check v min %.8e max %.8e\\n", lo, hi); }
/printf("Lb = %15.8f\\n", Lb);/a\
  { float lo = h_Lb[0], hi = h_Lb[0]; for (i = 1; i < NPATH; i++) { lo = fminf(lo, h_Lb[i]); hi = fmaxf(hi, h_Lb[i]); } printf("memzip-check Lb min %.8e max %.8e\\n", lo, hi); }
