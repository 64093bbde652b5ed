# Our edit to cuda-samples transpose.cu (applied to a copy in the build cache):
# the build may set NUM_REPS (the sample's timing loop, 100 launches per kernel).
s/^#define NUM_REPS 100$/#ifndef NUM_REPS\n#define NUM_REPS 100\n#endif/
