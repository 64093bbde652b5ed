# Our edits to Parboil lbm's CUDA and CPU versions (layout_config.h, lbm.cu;
# lbm_1d_array.h; applied to copies in the build cache).
# The grid size is fixed in the source (120 x 120 x 150): let the build set it
# (-DSIZE_X=... -DSIZE_Y=... -DSIZE_Z=...), for the presets' smaller grids.
s/^#define \(SIZE\(_[XYZ]\)\{0,1\}\) .*/#ifndef \1\
&\
#endif/
# CUDA 13 removed cudaThreadSynchronize.
s/cudaThreadSynchronize/cudaDeviceSynchronize/g
