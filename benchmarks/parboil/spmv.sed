# Our edits to Parboil spmv's CUDA version (main.cu, spmv_jds.h; applied to a
# copy in the build cache).
# A legacy texture reference the kernel never reads (CUDA 12 removed them).
/^texture<float,1> tex_x_float;/d
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# The timing loop launches the same product 50 times; the build sets how many
# (SPMV_REPS): every launch computes the same, and the simulator's cycles
# replace the timing.
s/for (int i= 0; i<50; i++)/for (int i = 0; i < SPMV_REPS; i++)/
1i\
#ifndef SPMV_REPS\
#define SPMV_REPS 50\
#endif
