# Our edits to Rodinia backprop_cuda.cu (applied to a copy in the build cache).
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# The program checks nothing and prints no result: print what its kernels
# compute, in both the GPU and the host-only (CPU) build, so a run can be
# compared with the host build. hidden-sums: the hidden units' weighted input
# sums before the sigmoid (forward kernel; the host build recomputes them in
# double); errors: output and hidden error; weight-change: the summed |change|
# of the input weights (adjust kernel). With Rodinia's data the sigmoid
# saturates (hidden units = 1.0), so the hidden error and the weight change are
# 0: those two lines only show that the adjust kernel changed no weight.
/cudaMemcpy(partial_sum, hidden_partial_sum,/a\
  { double s = 0; for (int k = 0; k < num_blocks * WIDTH; k++) s += partial_sum[k]; for (int j = 1; j <= hid; j++) s += net->input_weights[0][j]; printf("memzip-check hidden-sums %.9e\\n", s); }
/bpnn_layerforward(net->input_units, net->hidden_units,net->input_weights, in, hid);/a\
  { double s = 0; for (int j = 1; j <= hid; j++) for (int k = 0; k <= in; k++) s += (double)net->input_weights[k][j] * net->input_units[k]; printf("memzip-check hidden-sums %.9e\\n", s); }
/bpnn_hidden_error(net->hidden_delta, hid,/a\
  printf("memzip-check errors %.9e %.9e\\n", out_err, hid_err);
/cudaMemcpy(input_weights_one_dim, input_hidden_cuda,/a\
  { double s = 0; for (int k = 0; k <= in; k++) for (int j = 0; j <= hid; j++) s += fabs(input_weights_one_dim[k * (hid + 1) + j] - net->input_weights[k][j]); printf("memzip-check weight-change %.9e\\n", s); }
/bpnn_adjust_weights(net->hidden_delta, hid, net->input_units, in,/a\
  { double s = 0; for (int k = 0; k <= in; k++) for (int j = 0; j <= hid; j++) s += fabs(net->input_prev_weights[k][j]); printf("memzip-check weight-change %.9e\\n", s); }
# The output values (the forward kernel's hidden-layer partial sums, then the
# adjusted input weights), one per line, to the file $MEMZIP_VALUES names when
# it is set: what a lossy codec's output error is measured on
# (benchmarks/README.md, "Output values").
1i\
#include <stdio.h>\
#include <stdlib.h>\
static void memzip_values(const float *v, long n) {\
    static int opened = 0;\
    const char *path = getenv("MEMZIP_VALUES");\
    FILE *f = path ? fopen(path, opened++ ? "a" : "w") : NULL;\
    if (!f) return;\
    for (long i = 0; i < n; i++) fprintf(f, "%.9g\\n", v[i]);\
    fclose(f);\
}
/cudaMemcpy(partial_sum, hidden_partial_sum,/a\
  memzip_values(partial_sum, (long)num_blocks * WIDTH);
/cudaMemcpy(input_weights_one_dim, input_hidden_cuda,/a\
  memzip_values(input_weights_one_dim, (long)(in + 1) * (hid + 1));
