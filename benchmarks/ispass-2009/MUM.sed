# Our edits to ISPASS-2009 MUM (MUMmerGPU 1.0): mummergpu_kernel.cu and
# mummergpu.cu, applied to copies in the build cache.
#
# CUDA 12 removed texture references. The suffix tree (node and children
# arrays of uint4) and the reference string (chars) were 2-D textures read
# with tex2D at integer coordinates (point sampling, clamped addressing):
# they become plain global arrays read at the same (x, y), clamped the same
# way. The host's cudaArray calls become cudaMalloc / cudaMemcpy of the same
# width x height elements, and binding copies the pointer and size to the
# kernels' __constant__ variables. This keeps every access and its address
# pattern; it moves the reads from the texture cache to the L1/L2 path.
/^texture<ulong4, 2, cudaReadModeElementType> \(nodetex\|childrentex\);/d
/^texture<char, 2, cudaReadModeElementType> reftex;/c\
__constant__ const ulong4* memzip_nodetex;\
__constant__ const ulong4* memzip_childrentex;\
__constant__ const char* memzip_reftex;\
__constant__ int memzip_nodetex_size[2], memzip_childrentex_size[2], memzip_reftex_size[2]; /* width, height */\
template <typename T>\
__device__ T memzip_tex2D(const T* base, int width, int height, int x, int y)\
{\
  x = min(max(x, 0), width - 1);\
  y = min(max(y, 0), height - 1);\
  return base[y * width + x];\
}\
struct memzip_array { void* pointer; int width, height; };\
static memzip_array memzip_arrays[8];\
static cudaError_t memzip_mallocArray(cudaArray** array, const cudaChannelFormatDesc* desc, size_t width, size_t height)\
{\
  size_t bytes = width * height * ((desc->x + desc->y + desc->z + desc->w) / 8);\
  cudaError_t err = cudaMalloc((void**)array, bytes);\
  if (err != cudaSuccess) return err;\
  for (int i = 0; i < 8; i++)\
    if (memzip_arrays[i].pointer == NULL) { memzip_arrays[i].pointer = *array; memzip_arrays[i].width = (int)width; memzip_arrays[i].height = (int)height; return cudaSuccess; }\
  return cudaErrorMemoryAllocation;\
}\
static cudaError_t memzip_memcpyToArray(cudaArray* array, size_t, size_t, const void* source, size_t bytes, cudaMemcpyKind kind)\
{\
  return cudaMemcpy(array, source, bytes, kind);\
}\
/* cudaFree(NULL) does nothing: return before the runtime, so that the CPU path (-C) runs without a GPU. */\
static cudaError_t memzip_free(void* pointer)\
{\
  return pointer == NULL ? cudaSuccess : cudaFree(pointer);\
}\
static cudaError_t memzip_freeArray(cudaArray* array)\
{\
  for (int i = 0; i < 8; i++)\
    if (array != NULL && memzip_arrays[i].pointer == array) memzip_arrays[i].pointer = NULL;\
  return memzip_free(array);\
}\
template <typename P>\
static cudaError_t memzip_bind_to(P& pointer_symbol, int (&size_symbol)[2], cudaArray* array)\
{\
  for (int i = 0; i < 8; i++)\
    if (memzip_arrays[i].pointer == array) {\
      P pointer = (P)array;\
      int size[2] = {memzip_arrays[i].width, memzip_arrays[i].height};\
      cudaError_t err = cudaMemcpyToSymbol(pointer_symbol, &pointer, sizeof(pointer));\
      return err != cudaSuccess ? err : cudaMemcpyToSymbol(size_symbol, size, sizeof(size));\
    }\
  return cudaErrorInvalidValue;\
}\
#define memzip_bind(texture_name, array, desc) memzip_bind_to(memzip_##texture_name, memzip_##texture_name##_size, array)
s/tex2D(\(nodetex\|childrentex\|reftex\), */memzip_tex2D(memzip_\1, memzip_\1_size[0], memzip_\1_size[1], /g
s/cudaMallocArray(/memzip_mallocArray(/
s/cudaMemcpyToArray(/memzip_memcpyToArray(/
s/cudaFreeArray(/memzip_freeArray(/
s/cudaFree(/memzip_free(/
s/cudaBindTextureToArray( *\(nodetex\|childrentex\|reftex\) *,/memzip_bind(\1,/
s/cudaUnbindTexture( *\(nodetex\|childrentex\|reftex\) *)/cudaSuccess/
/^[ \t]*\(nodetex\|childrentex\|reftex\)\.\(addressMode\|filterMode\|normalized\)/d
# CUDA 13 removed cudaThreadSynchronize and cudaThreadExit. The syncs follow
# kernel launches (none on the CPU path); the exit after each query block
# only resets a device whose memory the program has already freed.
s/cudaThreadSynchronize();/if (!ctx->on_cpu) cudaDeviceSynchronize();/
s/cudaError_t err = cudaGetLastError();/cudaError_t err = ctx->on_cpu ? cudaSuccess : cudaGetLastError();/
s/^\([ \t]*\)cudaThreadExit();/\1\/* cudaThreadExit() *\//
