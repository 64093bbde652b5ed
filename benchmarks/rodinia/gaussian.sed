# Our edits to Rodinia gaussian.cu for CUDA 13 (applied to a copy in the build cache).
# cudaDeviceProp lost clockRate and deviceOverlap: print 0 instead.
s/deviceProp\.clockRate/0/
s/deviceProp\. *deviceOverlap/0/
# cudaThreadSynchronize is gone.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# The program prints its solution only when `verbose`, which no option sets:
# print it after the back substitution (the check reads it).
/^[ \t]*BackSub();/a\
    printf("The final solution is: \\n"); PrintAry(finalVec, Size);
