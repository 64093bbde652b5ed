# Our edits to Rodinia srad_v2 srad.cu (applied to a copy in the build cache).
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# The program prints its image only with -DOUTPUT, in a format without labels:
# print every row of the final image as a "memzip-check" line, in both the GPU
# build and the host-only (CPU) build, so compare_checks.py can compare them.
/printf("Computation Done\\n");/i\
  for (int i = 0; i < rows; i++) { printf("memzip-check row %d", i); for (int j = 0; j < cols; j++) printf(" %.7e", J[i * cols + j]); printf("\\n"); }
