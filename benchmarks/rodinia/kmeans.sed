# Our edits to Rodinia kmeans (kmeans_cuda.cu, kmeans_cuda_kernel.cu,
# kmeans_clustering.c; applied to a copy in the build cache).
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
# CUDA 12 removed texture references (`texture<float, 1>`, cudaBindTexture).
# The kernel reads its points through t_features, bound to the kernel's own
# argument `features` (feature_d): read that array with plain global loads
# (the GTX580 of the papers caches them in L1). t_features_flipped and
# t_clusters are bound but read only in code Rodinia leaves disabled.
/^texture<float, 1, cudaReadModeElementType> t_/d
s/tex1Dfetch(t_features,addr)/features[addr]/
/\/\* set up texture \*\//,/Couldn't bind clusters array to texture/d
# CUDA 5 removed symbol names given as strings.
s/cudaMemcpyToSymbol("c_clusters",/cudaMemcpyToSymbol(c_clusters,/
# The simulated machine has one device (Rodinia picks "the big card", 1).
s/cudaSetDevice(1)/cudaSetDevice(0)/
# The program prints centres to 2 decimals only: also write every point's
# cluster to membership.txt and print the iteration count and the centres in
# full as "memzip-check" lines, for the comparison with our host k-means.
/printf("iterated %d times\\n", c);/a\
	{ FILE *memzip_f = fopen("membership.txt", "w"); for (i = 0; i < npoints; i++) fprintf(memzip_f, "%d\\n", membership[i]); fclose(memzip_f); }\
	printf("memzip-check iterations %d\\n", c);\
	for (i = 0; i < nclusters; i++) { printf("memzip-check centre %d", i); for (j = 0; j < nfeatures; j++) printf(" %.9e", clusters[i][j]); printf("\\n"); }
