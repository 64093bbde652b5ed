# Our edits to LonestarGPU 2.0's include/*.h (applied to a copy in the build
# cache).
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# Blocks of at most 512 threads instead of 1024. The simulator sizes a CTA's
# registers by running ptxas for sm_75 on the PTX (drelax: 40 registers), and
# 1024 threads x 40 registers do not fit the GTX580's 32768-register SM, so
# gpgpu-sim aborts the launch ("Kernel requires more resources than shader
# has"); 512-thread blocks fit and run the same algorithm.
s/^#define MAXBLOCKSIZE\t1024/#define MAXBLOCKSIZE\t512/
s/return dp\.maxThreadsDim\[0\];/return dp.maxThreadsDim[0] < MAXBLOCKSIZE ? dp.maxThreadsDim[0] : MAXBLOCKSIZE;/
